package landlock

import (
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// withHome adds the home cache to the plan: the cache directory writable,
// ringfence's state (other workspaces' layers) unreadable.
func withHome(plan Plan, p *policy.Policy, h *confine.Home) Plan {
	if h == nil || h.Cache == "" {
		return plan
	}
	plan.Landlock.Write = append(plan.Landlock.Write, h.Cache)
	// Writable like a root for the supervisor too: the metadata guard
	// (touch, chmod of a cache entry) and sockets a tool makes there.
	plan.Seccomp.MetaWritable = append(plan.Seccomp.MetaWritable, h.Cache)
	plan.Seccomp.AllowUnix = append(plan.Seccomp.AllowUnix, h.Cache)
	for _, d := range h.Hide {
		if p.AccessAt(d) != policy.Deny {
			plan.Landlock.ReadCarved = append(plan.Landlock.ReadCarved, d)
		}
	}
	return plan
}

// homeReasons say what this backend does instead of a home layer and a
// mount path.
func homeReasons(req confine.Request, set []string) []string {
	var out []string
	if req.Home != nil {
		r := "no mount namespace, so no private home layer: home stays read-only"
		if len(set) > 0 {
			r += "; " + strings.Join(set, ", ") + " point at a private cache directory of this workspace"
		}
		out = append(out, r)
	}
	if req.MountPath != "" && req.Policy != nil && req.MountPath != req.Policy.Root {
		out = append(out, "no mount namespace: the workspace is at its real path, not at "+req.MountPath)
	}
	return out
}
