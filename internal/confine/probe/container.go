package probe

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Container says whether ringfence runs inside a container and what the
// container's runtime took away from a sandbox. Every fact is read, none
// is guessed from a single sign: Evidence lists the signs found.
type Container struct {
	Inside   bool     `json:"inside"`
	Runtime  string   `json:"runtime,omitempty"`  // podman, docker, kubernetes, or "unknown"
	Evidence []string `json:"evidence,omitempty"` // the signs that say so
	// TakenAway lists what this process lacks that a sandbox would use:
	// user namespaces, a seccomp filter already in force, a masked /proc,
	// a read-only /sys, capabilities, cgroup delegation, and the linux
	// backend's steps not taken. Filled in inside a container or out.
	TakenAway []string `json:"takenAway,omitempty"`
}

// Files the container facts read through Sources.ReadFile.
const (
	fileContainerEnv = "/run/.containerenv" // podman (and CRI-O)
	fileDockerEnv    = "/.dockerenv"
	fileSelfStatus   = "/proc/self/status"
	file1Cgroup      = "/proc/1/cgroup"
	fileCapLastCap   = "/proc/sys/kernel/cap_last_cap"
)

// containerFact gathers the container facts; r holds the facts already
// probed (user namespaces, cgroups, the linux backend's trial).
func containerFact(s Sources, r Report) Container {
	var c Container
	read := func(p string) (string, bool) { return sysctl(s, p) }
	env := func(k string) string {
		if s.Getenv == nil {
			return ""
		}
		return s.Getenv(k)
	}
	if v, ok := read(fileContainerEnv); ok {
		c.Evidence = append(c.Evidence, fileContainerEnv+" exists")
		c.Runtime = "podman"
		if strings.Contains(v, "engine=\"cri-o") {
			c.Runtime = "cri-o"
		}
	}
	if _, ok := read(fileDockerEnv); ok {
		c.Evidence = append(c.Evidence, fileDockerEnv+" exists")
		c.Runtime = "docker"
	}
	if env("KUBERNETES_SERVICE_HOST") != "" {
		c.Evidence = append(c.Evidence, "KUBERNETES_SERVICE_HOST is set")
		c.Runtime = "kubernetes"
	}
	if v := env("container"); v != "" {
		c.Evidence = append(c.Evidence, "container="+v+" in the environment")
		if c.Runtime == "" {
			c.Runtime = v
		}
	}
	for _, f := range []string{fileCgroup, file1Cgroup} {
		if v, ok := read(f); ok {
			for _, k := range []string{"kubepods", "docker", "libpod", "containerd", "crio"} {
				if strings.Contains(v, k) {
					c.Evidence = append(c.Evidence, f+" names "+k)
					break
				}
			}
		}
	}
	c.Inside = len(c.Evidence) > 0
	if c.Inside && c.Runtime == "" {
		c.Runtime = "unknown"
	}
	c.TakenAway = takenAway(s, r)
	return c
}

// takenAway lists what a sandbox here must do without.
func takenAway(s Sources, r Report) []string {
	var out []string
	if !r.UserNS.Available {
		out = append(out, "user namespaces: "+joinOr(r.UserNS.Reasons, "refused"))
	}
	status, _ := sysctl(s, fileSelfStatus)
	if mode := statusField(status, "Seccomp"); mode == "2" {
		out = append(out, fmt.Sprintf("seccomp: a filter is already in force (%s filter(s)): its profile decides which calls are left (new namespaces, sethostname, …)",
			orUnknown(statusField(status, "Seccomp_filters"))))
	}
	mi, _ := sysctl(s, fileMountinfo)
	if masked := maskedProc(mi); len(masked) > 0 {
		out = append(out, "masked /proc ("+strings.Join(masked, ", ")+"): the kernel refuses a fresh /proc in a user namespace")
	}
	if mountReadOnly(mi, "/sys") {
		out = append(out, "/sys is read-only")
	}
	if c := capsMissing(status, s); c != "" {
		out = append(out, c)
	}
	m, p := r.Cgroups.Memory, r.Cgroups.Pids
	if !m.Delegated || !p.Delegated {
		out = append(out, "cgroup delegation: memory groups "+yesNo(m.Delegated, m.Reason)+"; pids groups "+yesNo(p.Delegated, p.Reason)+" (limits are enforced by rlimits and sampling)")
	}
	for _, step := range r.Linux.NotTaken {
		out = append(out, "linux backend step not taken: "+step)
	}
	return out
}

// statusField is the value of a "Name:\tvalue" line of /proc/PID/status.
func statusField(status, name string) string {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// maskedProc lists the mount points below /proc in a mountinfo: what a
// runtime masked or made read-only (binfmt_misc, which sits on a
// permanently empty directory and hides nothing, aside).
func maskedProc(mountinfo string) []string {
	var out []string
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := f[4]
		if strings.HasPrefix(mp, "/proc/") && mp != "/proc/sys/fs/binfmt_misc" {
			out = append(out, mp)
		}
	}
	return out
}

// mountReadOnly reports whether the mount at mp is read-only.
func mountReadOnly(mountinfo, mp string) bool {
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[4] == mp {
			for _, o := range strings.Split(f[5], ",") {
				if o == "ro" {
					return true
				}
			}
		}
	}
	return false
}

// capsMissing says how many capabilities the bounding set lacks (what a
// runtime dropped), naming CAP_SYS_ADMIN when root lacks it.
func capsMissing(status string, s Sources) string {
	bnd, err := strconv.ParseUint(statusField(status, "CapBnd"), 16, 64)
	if err != nil {
		return ""
	}
	last := 40 // CAP_CHECKPOINT_RESTORE, Linux 5.9+
	if v, ok := sysctl(s, fileCapLastCap); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n < 64 {
			last = n
		}
	}
	all := uint64(1)<<(last+1) - 1
	missing := bits.OnesCount64(all &^ bnd)
	if missing == 0 {
		return ""
	}
	msg := fmt.Sprintf("capabilities: the bounding set lacks %d of %d", missing, last+1)
	if bnd&(1<<21) == 0 { // CAP_SYS_ADMIN
		msg += " (CAP_SYS_ADMIN among them: root here cannot mount outside a user namespace)"
	}
	return msg
}
