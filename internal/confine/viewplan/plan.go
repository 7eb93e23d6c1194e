package viewplan

import (
	"sort"

	"github.com/ringfence/ringfence/policy"
)

// Step is one layer as the view applies it: the layer (its path clean),
// where it came from, and what the layers before it give its path.
type Step struct {
	policy.Layer
	// Index is the layer's place in the list it was planned from
	// (Plan.Steps: the policy's layers; Plan.Shown: those plus the root).
	Index int
	// Before is the access the baseline and the earlier layers give Path;
	// BeforeDepth the depth of the deepest earlier layer containing it,
	// -1 when none does (the baseline decides).
	Before      policy.Access
	BeforeDepth int
	// Enclosing is the deepest other layer strictly containing Path, ""
	// when none does: the layer a missing carve-out is expanded around.
	Enclosing string
	// Added marks the workspace root shown though no layer names it
	// (Plan.Shown only).
	Added bool
}

// Changes reports whether the step grants something other than what its
// path had before it: only such a step needs a mount or a rule.
func (s Step) Changes() bool { return s.Access != s.Before }

// Mount is how a mount view shows a step's path.
type Mount int

// The mounts, by the access a step grants.
const (
	Mask   Mount = iota // hidden: an empty read-only mount over it
	BindRO              // the host's content, read-only
	BindRW              // the host's content, writable
)

// Mount is the mount that gives the step's path its access in a view;
// needed only where the step Changes (or something of the view's own,
// such as a private /tmp, hides the host content there).
func (s Step) Mount() Mount {
	switch s.Access {
	case policy.Write:
		return BindRW
	case policy.Read:
		return BindRO
	}
	return Mask // fail closed: anything but a grant hides
}

// Pin is a directory strictly between a writable root and a carve-out in
// it: made a mountpoint so that it can be neither renamed nor removed.
type Pin struct {
	Dir  string
	Root string // the writable root it lies in, the one to open it beneath
	// Cause is the first carve-out (layer order) it is on the way to.
	Cause Step
}

// Plan is the view a policy asks for, computed once. Every list is in
// layer order (broadest first) unless its doc says otherwise.
type Plan struct {
	Policy *policy.Policy
	// Steps are the policy's layers, each with what comes before it.
	Steps []Step
	// Shown are Steps plus the workspace root at the access it has when
	// no layer names it and that access is not Deny: a view whose own
	// fresh mounts (a private /tmp, a mount path) would hide the root
	// must still mount it.
	Shown []Step
	// Roots are the writable roots: paths made writable where they were
	// not (policy.WritableRoots' Roots).
	Roots []string
	// CarveOuts take write away inside a writable root: read-only,
	// protected and denied layers whose path was writable before them
	// (policy.WritableRoots' Denied).
	CarveOuts []Step
	// Hidden turn a readable path unreadable (policy.UnreadablePaths):
	// masks, and Landlock's read carve-outs.
	Hidden []Step
	// Reopened make readable a path that was not: under an allow-list
	// baseline every grant, under a deny-list one a grant inside a denied
	// subtree. Landlock's read rules.
	Reopened []Step
	// Pins are the directories to pin, outermost first (a pin lands on
	// the binds beneath it only if made before them).
	Pins []Pin
	// GuardNames are the protected carve-outs the seccomp guard holds by
	// name (policy.ProtectedByName), when there is a writable root for
	// it to guard: a mount or an absolute-path rule would refuse even an
	// empty .git/hooks, and so `git init`.
	GuardNames []string
	byName     func(string) bool
}

// New computes the plan for the resolved policy p. It reads nothing but p.
func New(p *policy.Policy) *Plan {
	pl := &Plan{Policy: p, byName: p.ProtectedByNameFunc()}
	pl.Steps = steps(p.Baseline, p.Layers, -1)
	pl.Shown = pl.Steps
	if added, at := shownRoot(p); at >= 0 {
		layers := append(append([]policy.Layer(nil), p.Layers[:at]...), added)
		pl.Shown = steps(p.Baseline, append(layers, p.Layers[at:]...), at)
	}
	for _, s := range pl.Steps {
		switch {
		case s.Access == policy.Write && s.Before != policy.Write:
			pl.Roots = append(pl.Roots, s.Path)
		case s.Access != policy.Write && s.Before == policy.Write:
			pl.CarveOuts = append(pl.CarveOuts, s)
		}
		switch {
		case s.Access == policy.Deny && s.Before != policy.Deny:
			pl.Hidden = append(pl.Hidden, s)
		case s.Access != policy.Deny && s.Before == policy.Deny:
			pl.Reopened = append(pl.Reopened, s)
		}
	}
	pl.Pins = pins(pl.Roots, pl.CarveOuts)
	for _, c := range pl.CarveOuts {
		if c.Origin == policy.FromProtected && len(pl.Roots) > 0 && pl.byName(c.Path) {
			pl.GuardNames = append(pl.GuardNames, c.Path)
		}
	}
	return pl
}

// steps pairs each layer with what the layers before it give its path;
// added (-1: none) is the index of the layer shownRoot inserted.
func steps(base policy.Access, layers []policy.Layer, added int) []Step {
	// Each layer's path cleaned and its depth, once: the pairs below are
	// quadratic in the layers and run on every start (issue 16).
	clean, depth := make([]string, len(layers)), make([]int, len(layers))
	for i, l := range layers {
		clean[i] = policy.Clean(l.Path)
		depth[i] = policy.Depth(clean[i])
	}
	out := make([]Step, len(layers))
	for i, l := range layers {
		l.Path = clean[i]
		s := Step{Layer: l, Index: i, Before: base, BeforeDepth: -1, Added: i == added}
		for j, e := range layers[:i] {
			if containsClean(clean[j], l.Path) {
				s.Before, s.BeforeDepth = e.Access, depth[j]
			}
		}
		enclosingDepth := 0 // policy.Depth(""), as s.Enclosing starts
		for j, e := range layers {
			if e.Path != l.Path && containsClean(clean[j], l.Path) && depth[j] >= enclosingDepth {
				s.Enclosing, enclosingDepth = clean[j], depth[j]
			}
		}
		out[i] = s
	}
	return out
}

// containsClean is policy.Contains for paths already clean.
func containsClean(root, p string) bool {
	return root == "/" || root == p || (len(p) > len(root) && p[len(root)] == '/' && p[:len(root)] == root)
}

// shownRoot is the layer for the workspace root when none names it and the
// policy does not deny it, and where it goes among the layers (-1: none).
func shownRoot(p *policy.Policy) (policy.Layer, int) {
	if p.Root == "" {
		return policy.Layer{}, -1
	}
	for _, l := range p.Layers {
		if l.Path == p.Root {
			return policy.Layer{}, -1
		}
	}
	a := p.AccessAt(p.Root)
	if a == policy.Deny {
		return policy.Layer{}, -1
	}
	added := policy.Layer{Path: p.Root, Access: a, Origin: policy.FromMode}
	layers := append(append([]policy.Layer(nil), p.Layers...), added)
	policy.SortLayers(layers)
	for i, l := range layers {
		if l == added {
			return added, i
		}
	}
	return policy.Layer{}, -1 // unreachable: added is in layers
}

// pins are the directories strictly between a carve-out and the deepest
// writable root holding it, each once, outermost first.
func pins(roots []string, carves []Step) []Pin {
	seen := map[string]bool{}
	var out []Pin
	for _, c := range carves {
		root := deepest(roots, c.Path)
		for d := parent(c.Path); root != "" && d != root && policy.Contains(root, d); d = parent(d) {
			if !seen[d] {
				seen[d] = true
				out = append(out, Pin{Dir: d, Root: root, Cause: c})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return policy.Depth(out[i].Dir) < policy.Depth(out[j].Dir) })
	return out
}

// RootOf is the deepest writable root holding path, "" when none does:
// the root a pin or an expanded entry is opened beneath.
func (pl *Plan) RootOf(path string) string { return deepest(pl.Roots, path) }

// ByName reports whether path is one the seccomp guard protects by name
// (policy.ProtectedByName), answered from the roots computed once.
func (pl *Plan) ByName(path string) bool { return pl.byName(path) }

// Within are the read-only and denied layers under the writable layer w
// whose nearest enclosing layer is w itself, in layer order: the ones a
// bind of w would leave writable if they do not exist (no mount can cover
// a missing path), which missing reports.
func (pl *Plan) Within(w string, missing func(path string) (bool, error)) ([]string, error) {
	var out []string
	for _, s := range pl.Steps {
		if s.Access == policy.Write || s.Path == w || !policy.Contains(w, s.Path) || s.Enclosing != w {
			continue
		}
		gone, err := missing(s.Path)
		if err != nil {
			return nil, err
		}
		if gone {
			out = append(out, s.Path)
		}
	}
	return out, nil
}

func deepest(roots []string, path string) string {
	best := ""
	for _, r := range roots {
		if policy.Contains(r, path) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func parent(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}
