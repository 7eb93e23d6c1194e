package probe

import "fmt"

// The policy features Features reports, in the order doctor prints them.
const (
	FeatFileWrite       = "file-write-confinement"
	FeatProtected       = "protected-paths"
	FeatDeniedReads     = "denied-reads"
	FeatNetworkDeny     = "network-deny"
	FeatNetworkLoopback = "network-loopback"
	FeatNetworkDomains  = "network-domains"
	FeatHostUnix        = "host-unix-sockets"
	FeatProcesses       = "process-isolation"
	FeatSignals         = "signal-isolation"
	FeatLimits          = "resource-limits"
	FeatTreeKill        = "tree-kill"
)

// featureOrder is every feature, as printed.
var featureOrder = []string{FeatFileWrite, FeatProtected, FeatDeniedReads, FeatNetworkDeny,
	FeatNetworkLoopback, FeatNetworkDomains, FeatHostUnix, FeatProcesses, FeatSignals, FeatLimits, FeatTreeKill}

// Features says, for backend ("linux", "landlock", "bwrap", or "none") on
// the host r describes, how completely each policy feature is enforced.
// It is pure: the same report always gives the same answer.
func Features(r Report, backend string) []Feature {
	var rules map[string]Feature
	unusable := ""
	switch backend {
	case "linux":
		rules, unusable = linuxFeatures(r), usableIf(r.UserNS.Available, "user namespaces unavailable")
	case "bwrap":
		rules, unusable = bwrapFeatures(r), usableIf(r.Bwrap.Usable, "bwrap unusable: "+r.Bwrap.Reason)
	case "landlock":
		rules, unusable = landlockFeatures(r), usableIf(r.Landlock.ABI >= 1, "Landlock unavailable")
	default:
		unusable = "no backend can confine here"
	}
	out := make([]Feature, 0, len(featureOrder))
	for _, name := range featureOrder {
		f, ok := rules[name]
		if unusable != "" || !ok {
			f = Feature{Level: None, Reason: joinOr([]string{unusable}, "not enforced by "+backend)}
		}
		f.Name = name
		out = append(out, f)
	}
	return out
}

// DomainsByBackend is FeatNetworkDomains under each backend, Name set to
// the backend's.
func DomainsByBackend(r Report) []Feature {
	var out []Feature
	for _, b := range []string{"linux", "bwrap", "landlock"} {
		for _, f := range Features(r, b) {
			if f.Name == FeatNetworkDomains {
				f.Name = b
				out = append(out, f)
			}
		}
	}
	return out
}

func usableIf(ok bool, why string) string {
	if ok {
		return ""
	}
	return why
}

func full(reason string) Feature    { return Feature{Level: Full, Reason: reason} }
func partial(reason string) Feature { return Feature{Level: Partial, Reason: reason} }
func none(reason string) Feature    { return Feature{Level: None, Reason: reason} }

// protectedByGuard is how the mount backends hold protected paths: a mount
// needs an existing mountpoint, so one that does not exist yet is held by
// the seccomp guard, which performs every creation itself and refuses
// protected names. Without user notification it is only reported.
func protectedByGuard(r Report, where string) Feature {
	if !r.Seccomp.UserNotify {
		return partial("existing protected paths are mounted read-only; without seccomp user notification one that does not exist yet can be created (each run names them)")
	}
	return full("existing protected paths mounted read-only; missing ones refused by the seccomp guard " + where)
}

func linuxFeatures(r Report) map[string]Feature {
	f := map[string]Feature{
		FeatFileWrite:       full("mount namespace: host read-only, writable roots bound read-write"),
		FeatDeniedReads:     full("denied paths masked in the mount view; fresh /proc"),
		FeatNetworkDeny:     full("new network namespace, loopback down"),
		FeatNetworkLoopback: full("new network namespace with its own loopback up"),
		FeatNetworkDomains:  full("only lo, every destination routed to it; HTTP, SOCKS5, capture and DNS stub in the namespace, one policy proxy outside deciding each connection by name"),
		FeatProcesses:       full("new pid namespace and fresh /proc"),
		FeatSignals:         full("new pid namespace: host processes cannot be named"),
		FeatLimits:          limits(r),
		FeatTreeKill:        full("pid namespace: killing the init ends every descendant"),
	}
	f[FeatProtected] = protectedByGuard(r, "in the init")
	f[FeatHostUnix] = hostUnix(r, "seccomp user notification checks each connect")
	if r.Linux.HostProc {
		// A container's masked /proc: no fresh one can be mounted.
		f[FeatDeniedReads] = partial("denied paths masked in the mount view; /proc is the container's own (a fresh one is refused here): the command lists processes the container starts after it")
		f[FeatProcesses] = partial("new pid namespace, but /proc is the container's own, read-only, with the processes present at start masked: later ones are listed (command lines, status), not reachable")
	}
	return f
}

func bwrapFeatures(r Report) map[string]Feature {
	return map[string]Feature{
		FeatFileWrite:       full("mount namespace: host read-only, writable roots bound read-write"),
		FeatProtected:       protectedByGuard(r, "in the exec shim"),
		FeatDeniedReads:     full("denied paths masked (tmpfs or /dev/null); fresh /proc"),
		FeatNetworkDeny:     partial("new network namespace, but bwrap brings loopback up: only the sandbox's own loopback is reachable"),
		FeatNetworkLoopback: full("new network namespace with its own loopback"),
		FeatNetworkDomains:  bwrapDomains(r),
		FeatHostUnix:        hostUnix(r, "the exec shim supervises each connect (seccomp user notification) inside the sandbox"),
		FeatProcesses:       full("new pid namespace and fresh /proc"),
		FeatSignals:         full("new pid namespace: host processes cannot be named"),
		FeatLimits:          limits(r),
		FeatTreeKill:        full("pid namespace: killing bwrap ends its init and every descendant"),
	}
}

// bwrapDomains: the exec shim hosts the domains network as root; bwrap
// nests an ordinary user's sandbox in a second user namespace, from which
// the network cannot be set up, so there it is refused.
func bwrapDomains(r Report) Feature {
	if !r.Root {
		return none("refused for a user other than root: bwrap nests the sandbox in a second user namespace, from which the exec shim cannot set up the network (the linux backend can)")
	}
	return full("only lo, every destination routed to it; the exec shim hosts HTTP, SOCKS5, capture and the DNS stub, one policy proxy outside deciding each connection by name")
}

func landlockFeatures(r Report) map[string]Feature {
	abi := r.Landlock.ABI
	f := map[string]Feature{
		FeatFileWrite:       full(fmt.Sprintf("Landlock ABI %d write rules", abi)),
		FeatProtected:       landlockProtected(r),
		FeatDeniedReads:     partial("Landlock read rules granted around denied paths; no mount namespace, so host /proc is visible"),
		FeatNetworkLoopback: none("Landlock network rules are by port, not address: loopback cannot be told apart"),
		FeatNetworkDomains:  landlockDomains(r),
		FeatProcesses:       none("no pid namespace: host processes are visible"),
		FeatLimits:          limits(r),
	}
	// The command's own scoped domain (ABI 6) keeps it from signalling its
	// init, the subreaper that ends the tree; before, it can stop it.
	f[FeatTreeKill] = partial("the init, a child subreaper, ends every descendant (setsid'd daemons included) when the command ends or ringfence dies; before Landlock ABI 6 the command can stop it")
	if abi >= 6 {
		f[FeatTreeKill] = partial("the init, a child subreaper the command cannot signal (its own scoped Landlock domain), ends every descendant when the command ends or ringfence dies; no pid namespace ends them if the init itself is killed (out of memory)")
	}
	f[FeatNetworkDeny] = none("Landlock before ABI 4 has no network rules")
	if abi >= 4 {
		f[FeatNetworkDeny] = partial("Landlock TCP bind/connect rules; UDP and other protocols are not covered")
	}
	f[FeatSignals] = none("Landlock before ABI 6 cannot scope signals")
	if abi >= 6 {
		f[FeatSignals] = full("the command's own scoped Landlock domain: no signal reaches a process outside it, its init included")
	}
	f[FeatHostUnix] = hostUnix(r, "seccomp user notification checks each connect")
	if f[FeatHostUnix].Level == Full {
		f[FeatHostUnix] = full("seccomp user notification checks each connect; abstract sockets connect only to the sandbox's own listeners")
	}
	return f
}

// hostUnix: connect() to a host socket is refused only where seccomp user
// notification lets the supervisor check each one.
func hostUnix(r Report, how string) Feature {
	if r.Seccomp.UserNotify {
		return full(how)
	}
	return none("seccomp user notification unavailable: connect() to readable host sockets is not refused")
}

// landlockDomains: without a network namespace nothing can be captured;
// the proxy listens on the host's loopback and the seccomp supervisor
// lets IP sockets connect only there.
func landlockDomains(r Report) Feature {
	if !r.Seccomp.UserNotify {
		return none("refused: without seccomp user notification no connect can be held to the proxy")
	}
	return partial("the policy proxy on the host's loopback, reached through the proxy variables; every other connect refused " +
		"(made by the seccomp supervisor, to the proxy only), no UDP, DNS or listening: a program that ignores the variables is refused, not captured")
}

// limits: quota where cgroups for memory and pids can be made, else the
// supervisor's rlimits and sampling.
func limits(r Report) Feature {
	m, p := r.Cgroups.Memory, r.Cgroups.Pids
	if m.Delegated && p.Delegated {
		return full(fmt.Sprintf("quota: cgroup %s memory and %s pids groups", m.Version, p.Version))
	}
	return partial("monitor: rlimits and sampling (memory: " + joinOr([]string{m.Reason}, "ok") +
		"; pids: " + joinOr([]string{p.Reason}, "ok") + ")")
}

// landlockProtected: without mounts, the seccomp guard holds protected
// paths (by name at every depth), acting on threads in the command's
// Landlock domain; it does not refuse deleting them.
func landlockProtected(r Report) Feature {
	if !r.Seccomp.UserNotify {
		return none("protected paths stay writable: Landlock cannot take write away inside a writable root, and without seccomp user notification there is no guard")
	}
	return partial("protected paths held by the seccomp guard (creation, write, truncation, link, rename, removal refused; by name at every depth), not by a mount: no mount namespace")
}
