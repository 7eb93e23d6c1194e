package confine

import "strings"

// Home is the private copy-on-write layer over the user's home directory
// a backend with a mount namespace shows in place of the read-only home:
// reads see the real files (the policy's denied entries still masked),
// writes land in Upper and never reach Dir. The caller (the facade) makes
// Upper and Work, on one filesystem, under ringfence's own state directory
// (see internal/homestate), and names that directory in Hide so no command
// can read or write another run's layer except through its own overlay.
type Home struct {
	Dir   string   // the host home directory: absolute, clean
	Upper string   // overlay upper directory (host path)
	Work  string   // overlay work directory (host path, same filesystem)
	Hide  []string // host paths masked in the view: ringfence's state directory
	// Cache is a private writable directory the landlock backend (no mount
	// namespace, so no overlay) points the toolchain cache variables at.
	Cache string
}

// cacheVars are the toolchain cache variables a backend without a home
// layer points at the workspace's private cache directory (relative to
// it). Without them, with home read-only, `go build` fails writing
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

// CacheEnv returns env with the cache variables pointed under cache, each
// only where the caller did not set it, and the names it set.
func CacheEnv(env []string, cache string) ([]string, []string) {
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
