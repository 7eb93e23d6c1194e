package viewplan

import "github.com/ringfence/ringfence/policy"

// What a backend without a mount namespace (Landlock and the seccomp
// guard alone) needs beyond the plan: Landlock grants are unions over
// ancestors and cannot subtract, so each kind of carve-out is held
// differently, and these split them.

// Explicit are the carve-outs a person asked for (a --read-only path, a
// policy-file entry), without the generated protected subpaths, split
// into read-only and denied ones. Carving a path out of a Landlock grant
// means granting its parent per entry, after which nothing can be created
// directly in that parent: carving .git/hooks would refuse every new
// top-level file and `git commit` (.git/index.lock). Generated protected
// paths are held by the seccomp guard instead (Protected).
func (pl *Plan) Explicit() (readOnly, denied []string) {
	generated := map[string]bool{}
	access := map[string]policy.Access{}
	for _, s := range pl.Steps {
		if s.Origin == policy.FromProtected {
			generated[s.Path] = true
		}
		access[s.Path] = s.Access
	}
	for _, c := range pl.CarveOuts {
		switch {
		case generated[c.Path]:
		case access[c.Path] == policy.Read:
			readOnly = append(readOnly, c.Path)
		default:
			denied = append(denied, c.Path)
		}
	}
	return readOnly, denied
}

// DeniedInside are the denied layers inside a writable root that denied
// (the outermost denied carve-outs) does not already cover: a deny nested
// in a read-only carve-out (the ringfence config dir inside a read-only
// ~/.config, with the workspace at ~). The read-only carve-out is held by
// the guard, not by Landlock, so the root's grant would read through to
// the denied path unless it is carved too.
func (pl *Plan) DeniedInside(denied []string) []string {
	var out []string
	for _, s := range pl.Steps {
		if s.Access != policy.Deny || coveredBy(denied, s.Path) || !coveredBy(pl.Roots, s.Path) {
			continue
		}
		out = append(out, s.Path)
	}
	return out
}

// Protected are the generated protected layers (policy.FromProtected):
// byPath those inside a writable root no name rule covers (an extra
// subpath such as secrets/key), which a guard holds by absolute path;
// byName those policy.ProtectedByName covers, which the name guard holds
// at every depth.
func (pl *Plan) Protected() (byPath, byName []string) {
	for _, s := range pl.Steps {
		switch {
		case s.Origin != policy.FromProtected:
		case pl.byName(s.Path):
			byName = append(byName, s.Path)
		case coveredBy(pl.Roots, s.Path):
			byPath = append(byPath, s.Path)
		}
	}
	return byPath, byName
}

func coveredBy(dirs []string, path string) bool {
	for _, d := range dirs {
		if policy.Contains(d, path) {
			return true
		}
	}
	return false
}
