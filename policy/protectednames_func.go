package policy

import "strings"

// ProtectedByNameFunc is ProtectedByName with p's writable roots computed
// once, for a caller asking about many paths of one policy (a backend's
// plan asks for every protected layer). WritableRoots is quadratic in the
// layers, and a default CLI policy has dozens of protected layers: asking
// ProtectedByName per layer took a fifth of a `ringfence run`'s CPU. The
// function answers for p as it is now; it must not outlive a change to p.
func (p *Policy) ProtectedByNameFunc() func(path string) bool {
	type root struct{ path, prefix string }
	var roots []root
	for _, r := range p.WritableRoots().Roots {
		roots = append(roots, root{r, Clean(r) + "/"})
	}
	return func(path string) bool {
		clean := Clean(path)
		for _, r := range roots {
			if r.path != path && Contains(r.path, path) && p.Names.Match(strings.TrimPrefix(clean, r.prefix)).Protected() {
				return true
			}
		}
		return false
	}
}
