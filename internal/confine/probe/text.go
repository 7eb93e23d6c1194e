package probe

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Text is the human-readable `ringfence doctor` report.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kernel           %s (%s)%s\n", orUnknown(r.Kernel), orUnknown(r.Arch), rootNote(r.Root))
	fmt.Fprintf(&b, "landlock         %s\n", r.landlockLine())
	fmt.Fprintf(&b, "seccomp          %s\n", r.seccompLine())
	fmt.Fprintf(&b, "user namespaces  %s\n", yesNo(r.UserNS.Available, r.UserNS.Reasons...))
	fmt.Fprintf(&b, "cgroups          %s\n", r.Cgroups.Version)
	for _, m := range r.Cgroups.Mounts {
		fmt.Fprintf(&b, "  %-3s %-30s %s\n", m.Version, m.Path, strings.Join(m.Controllers, ","))
	}
	fmt.Fprintf(&b, "  memory groups  %s\n", controllerLine(r.Cgroups.Memory))
	fmt.Fprintf(&b, "  pids groups    %s\n", controllerLine(r.Cgroups.Pids))
	fmt.Fprintf(&b, "bwrap            %s\n", r.bwrapLine())
	if r.Init != "" {
		fmt.Fprintf(&b, "init             %s\n", r.Init)
	}
	fmt.Fprintf(&b, "container        %s\n", r.containerLine())
	if len(r.Container.TakenAway) > 0 {
		fmt.Fprintf(&b, "  %s:\n", takenTitle(r.Container.Inside))
		for _, t := range r.Container.TakenAway {
			fmt.Fprintf(&b, "  - %s\n", t)
		}
	}
	fmt.Fprintf(&b, "\nauto backend     %s\n", r.Auto)
	for _, why := range r.AutoReasons {
		fmt.Fprintf(&b, "  - %s\n", why)
	}
	fmt.Fprintf(&b, "\npolicy features under %s:\n", r.Auto)
	for _, f := range r.Features {
		fmt.Fprintf(&b, "  %-24s %-8s %s\n", f.Name, f.Level, f.Reason)
	}
	if len(r.NetworkDomains) > 0 {
		fmt.Fprintf(&b, "\n%s by backend:\n", FeatNetworkDomains)
		for _, f := range r.NetworkDomains {
			fmt.Fprintf(&b, "  %-24s %-8s %s\n", f.Name, f.Level, f.Reason)
		}
	}
	return b.String()
}

// JSON is the `ringfence doctor --json` report.
func (r Report) JSON() ([]byte, error) { return json.MarshalIndent(r, "", "  ") }

func (r Report) landlockLine() string {
	if r.Landlock.ABI >= 1 {
		return fmt.Sprintf("ABI %d", r.Landlock.ABI)
	}
	return yesNo(false, r.Landlock.Reason)
}

func (r Report) seccompLine() string {
	if !r.Seccomp.Available {
		return yesNo(false, r.Seccomp.Reason)
	}
	if r.Seccomp.UserNotify {
		return "yes (filters, user notification)"
	}
	return "yes (filters; no user notification)"
}

func (r Report) bwrapLine() string {
	if r.Bwrap.Usable {
		return fmt.Sprintf("%s at %s", r.Bwrap.Version, r.Bwrap.Path)
	}
	return yesNo(false, r.Bwrap.Reason)
}

func (r Report) containerLine() string {
	c := r.Container
	if !c.Inside {
		return "no sign of one"
	}
	return fmt.Sprintf("yes, %s (%s)", c.Runtime, strings.Join(c.Evidence, "; "))
}

func takenTitle(inside bool) string {
	if inside {
		return "what the container's runtime took away"
	}
	return "what this host takes away"
}

func controllerLine(c Controller) string {
	if c.Delegated {
		return fmt.Sprintf("yes (%s, under %s)", c.Version, c.Dir)
	}
	return yesNo(false, c.Reason)
}

func yesNo(ok bool, reasons ...string) string {
	if ok {
		return "yes"
	}
	return "no: " + joinOr(reasons, "unknown reason")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func rootNote(root bool) string {
	if root {
		return ", running as root"
	}
	return ""
}
