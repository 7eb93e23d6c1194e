package landlock

import (
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// cacheVars are the toolchain cache variables pointed at the workspace's
// private cache directory, relative to it. Home stays read-only here (no
// mount namespace, so no overlay): without these, `go build` fails writing
// ~/.cache/go-build and npm writing ~/.npm. GOMODCACHE is left alone: the
// host's module cache is read, which works offline and for every module
// already there; a download into it is refused (read-only), as it would
// be a write to the real home.
var cacheVars = [][2]string{
	{"XDG_CACHE_HOME", ""},
	{"GOCACHE", "go-build"},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"PIP_CACHE_DIR", "pip"},
}

// homeEnv returns env with the cache variables pointed under cache, each
// only where the caller did not set it, and the names it set.
func homeEnv(env []string, cache string) ([]string, []string) {
	have := map[string]bool{}
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			have[k] = true
		}
	}
	out := append([]string(nil), env...)
	var set []string
	for _, v := range cacheVars {
		if have[v[0]] {
			continue
		}
		dir := cache
		if v[1] != "" {
			dir += "/" + v[1]
		}
		out = append(out, v[0]+"="+dir)
		set = append(set, v[0])
	}
	return out, set
}

// withHome adds the home cache to the plan: the cache directory writable,
// ringfence's state (other workspaces' layers) unreadable.
func withHome(plan Plan, p *policy.Policy, h *confine.Home) Plan {
	if h == nil || h.Cache == "" {
		return plan
	}
	plan.Landlock.Write = append(plan.Landlock.Write, h.Cache)
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
