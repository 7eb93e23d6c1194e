package bwrap

import (
	"sort"
	"strconv"

	"github.com/ringfence/ringfence/policy"
)

// PinDirs are the directories to pin for p, outermost first: every
// directory strictly between a writable root and a carve-out in it (a
// read-only or protected path, or a denied one). A mountpoint can be
// neither renamed nor removed (EBUSY), so once each of them is one, the
// directory holding a carve-out cannot be moved aside and replaced by a
// fresh one without it (mv .git .git.old && mkdir .git && echo … >
// .git/config): the carve-out's own mount only holds the carve-out, and it
// moves along with a renamed parent. The native backend pins the same
// directories (internal/confine/linux, pinOps).
//
// The provider opens each one beneath its root without following links
// (see openPins) and hands bwrap the descriptor (--bind-fd), so a pin is
// always the workspace's own directory, never what a link planted there
// points to.
func PinDirs(p *policy.Policy) []string {
	roots := p.WritableRoots().Roots
	seen := map[string]bool{}
	var dirs []string
	for _, c := range carveOuts(p) {
		root := deepestContaining(roots, c)
		for d := parentDir(c); root != "" && d != root && policy.Contains(root, d); d = parentDir(d) {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	sort.SliceStable(dirs, func(i, j int) bool { return policy.Depth(dirs[i]) < policy.Depth(dirs[j]) })
	return dirs
}

// PinRoot is the writable root a pin directory lies in: the one it is
// opened beneath.
func PinRoot(p *policy.Policy, dir string) string {
	return deepestContaining(p.WritableRoots().Roots, dir)
}

// carveOuts are the layers that take write away inside a writable subtree.
func carveOuts(p *policy.Policy) []string {
	var out []string
	for i, l := range p.Layers {
		if l.Access != policy.Write && accessBefore(p, i) == policy.Write {
			out = append(out, policy.Clean(l.Path))
		}
	}
	return out
}

// accessBefore is the access at layer i's path from the baseline and the
// layers before it (they are sorted broadest first).
func accessBefore(p *policy.Policy, i int) policy.Access {
	access := p.Baseline
	for _, l := range p.Layers[:i] {
		if policy.Contains(l.Path, p.Layers[i].Path) {
			access = l.Access
		}
	}
	return access
}

func deepestContaining(roots []string, path string) string {
	best := ""
	for _, r := range roots {
		if r = policy.Clean(r); policy.Contains(r, path) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func parentDir(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

// pinStep binds the pinned directory's descriptor over itself. Only where
// the view shows writable host content does a pin matter (and only there
// is the descriptor's directory the same thing the view already shows).
func (v *view) pinStep(s step) {
	if v.before(s.path) != hostRW {
		return
	}
	v.set(s.path, hostRW, "--bind-fd", strconv.Itoa(s.pinFD), s.path)
}
