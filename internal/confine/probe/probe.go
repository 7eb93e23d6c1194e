package probe

import (
	"fmt"
	"strings"
)

// Probe gathers a Report from s. It is deterministic given s, so every
// kind of host is a table entry; Host calls it with the real sources.
func Probe(s Sources) Report {
	var r Report
	if s.Uname != nil {
		if rel, arch, err := s.Uname(); err == nil {
			r.Kernel, r.Arch = rel, arch
		}
	}
	if s.Euid != nil {
		r.Root = s.Euid() == 0
	}
	r.Landlock = landlockFact(s)
	r.Seccomp = seccompFact(s)
	r.UserNS = userNSFact(s, r.Root)
	r.Cgroups = cgroupFacts(s)
	r.Bwrap = bwrapFact(s)
	if s.Init != nil {
		r.Init = s.Init()
	}
	r.Linux = linuxFact(s, r)
	r.Container = containerFact(s, r)
	r.Auto, r.AutoReasons = Choose(r)
	r.Features = Features(r, r.Auto)
	r.NetworkDomains = DomainsByBackend(r)
	return r
}

func landlockFact(s Sources) Landlock {
	if s.LandlockABI == nil {
		return Landlock{Reason: "not supported on this platform"}
	}
	abi, err := s.LandlockABI()
	if err != nil {
		return Landlock{Reason: err.Error()}
	}
	return Landlock{ABI: abi}
}

func seccompFact(s Sources) Seccomp {
	if s.Seccomp == nil {
		return Seccomp{Reason: "not supported on this platform"}
	}
	filter, notify, err := s.Seccomp()
	f := Seccomp{Available: filter, UserNotify: notify}
	if err != nil {
		f.Reason = err.Error()
	}
	return f
}

// userNSFact runs the trial and, whatever it says, collects every setting
// known to forbid user namespaces, so a failure comes with its cause.
func userNSFact(s Sources, root bool) UserNS {
	var u UserNS
	if v, ok := sysctl(s, fileMaxUserNS); ok && v == "0" {
		u.Reasons = append(u.Reasons, "user.max_user_namespaces is 0")
	}
	if v, ok := sysctl(s, fileUnprivClone); ok && v == "0" && !root {
		u.Reasons = append(u.Reasons, "kernel.unprivileged_userns_clone is 0 (unprivileged users may not create them)")
	}
	if v, ok := sysctl(s, fileAppArmorUserNS); ok && v == "1" && !root {
		u.Reasons = append(u.Reasons, "kernel.apparmor_restrict_unprivileged_userns is 1 (AppArmor restricts unprivileged user namespaces)")
	}
	if s.TryUserNS == nil {
		u.Reasons = append(u.Reasons, "not supported on this platform")
		return u
	}
	if err := s.TryUserNS(); err != nil {
		u.Reasons = append(u.Reasons, "trial failed: "+err.Error())
		return u
	}
	u.Available = true
	u.Reasons = nil // a setting that did not stop the trial is not a reason
	return u
}

// sysctl reads a one-value /proc/sys file; ok is false when it is absent.
func sysctl(s Sources, path string) (string, bool) {
	if s.ReadFile == nil {
		return "", false
	}
	b, err := s.ReadFile(path)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

func bwrapFact(s Sources) Bwrap {
	if s.Bwrap == nil {
		return Bwrap{Reason: "not supported on this platform"}
	}
	path, version, err := s.Bwrap()
	b := Bwrap{Path: path, Version: version, Usable: err == nil}
	if err != nil {
		b.Reason = err.Error()
	}
	return b
}

// Choose is the backend `auto` picks: linux where user namespaces work
// (the full mechanism), else bwrap where it works (a setuid bwrap needs no
// unprivileged user namespaces), else landlock where the kernel has it,
// else "none": a confining policy is refused, never run unconfined.
func Choose(r Report) (string, []string) {
	var why []string
	switch {
	case r.UserNS.Available && r.Linux.Available && len(r.Linux.NotTaken) == 0:
		return "linux", []string{"user namespaces work: the native backend confines fully"}
	case r.UserNS.Available && r.Linux.Available:
		return "linux", append([]string{"user namespaces work: the native backend keeps its namespaces and mount view, with steps this host refuses left out:"},
			r.Linux.NotTaken...)
	case r.UserNS.Available:
		why = []string{"user namespaces work, but the linux backend's trial failed: " + joinOr([]string{r.Linux.Reason}, "unknown reason")}
	default:
		why = []string{"user namespaces unavailable: " + joinOr(r.UserNS.Reasons, "unknown reason")}
	}
	if r.Bwrap.Usable {
		return "bwrap", append(why, fmt.Sprintf("bwrap %s at %s works", r.Bwrap.Version, r.Bwrap.Path))
	}
	why = append(why, "bwrap unusable: "+joinOr([]string{r.Bwrap.Reason}, "not found"))
	if r.Landlock.ABI >= 1 {
		return "landlock", append(why, fmt.Sprintf("Landlock ABI %d: file rules without namespaces (partial)", r.Landlock.ABI))
	}
	why = append(why, "Landlock unavailable: "+joinOr([]string{r.Landlock.Reason}, "ABI 0"))
	return "none", append(why, "no backend can confine here: confining policies are refused")
}

func joinOr(parts []string, empty string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return empty
	}
	return strings.Join(kept, "; ")
}
