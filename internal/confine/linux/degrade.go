package linux

// Hostname is the sandbox's host name (its own UTS namespace).
const Hostname = "ringfence"

// Degraded are the steps of the backend's design this host refuses while
// the namespaces themselves work (typically a container). Each is named in
// every run's enforcement reasons (Reasons); none is skipped silently.
type Degraded struct {
	// HostProc: a fresh /proc is refused (EPERM at the mounts stage: the
	// container's runtime masked parts of its /proc, and a proc mount in
	// a user namespace may not reveal them). Views show the container's
	// own /proc (initproc.ProcHost).
	HostProc bool `json:"hostProc,omitempty"`
	// NoHostname: sethostname is refused (EPERM at the uts stage: the
	// runtime's seccomp profile keeps it for CAP_SYS_ADMIN). The UTS
	// namespace is still the sandbox's own; its name is the container's.
	NoHostname bool `json:"noHostname,omitempty"`
}

// nextStep decides, after a probe with d failed at stage with errno,
// which step to give up next; false when none: the failure is not one a
// missing step explains, and the backend is unavailable.
func nextStep(d Degraded, stage, errno string) (Degraded, bool) {
	switch {
	case stage == "mounts" && errno == "EPERM" && !d.HostProc:
		d.HostProc = true
	case stage == "uts" && errno == "EPERM" && !d.NoHostname:
		d.NoHostname = true
	default:
		return d, false
	}
	return d, true
}

// HostProcReason is the step not taken where a fresh /proc is refused.
const HostProcReason = "no fresh /proc: the kernel refuses a new proc mount here (EPERM: the container's runtime masked parts of its /proc), " +
	"so the sandbox shows the container's own /proc read-only, with the processes present at start masked; " +
	"processes the container starts later, and threads a masked process starts later, are listed there or open by id (command lines, status) though not reachable (pid namespace, Landlock, seccomp), " +
	"and /proc numbers processes as the container does, not as the command's getpid() does"

// NoHostnameReason is the step not taken where sethostname is refused.
const NoHostnameReason = "the host name is the container's: sethostname is refused here (the runtime's seccomp profile), " +
	"though the UTS namespace is still the sandbox's own"

// Reasons names every step d leaves out, for enforcement.reasons.
func (d Degraded) Reasons() []string {
	var out []string
	if d.HostProc {
		out = append(out, HostProcReason)
	}
	if d.NoHostname {
		out = append(out, NoHostnameReason)
	}
	return out
}
