package policy

import "sort"

// SortLayers orders layers broadest to narrowest; at equal depth by origin
// (so an explicit entry beats a generated one), then by path for a stable
// order, so one policy always yields one backend profile.
func SortLayers(layers []Layer) {
	sort.SliceStable(layers, func(i, j int) bool {
		a, b := layers[i], layers[j]
		if da, db := Depth(a.Path), Depth(b.Path); da != db {
			return da < db
		}
		if a.Origin != b.Origin {
			return a.Origin < b.Origin
		}
		return a.Path < b.Path
	})
}

// AccessAt is the access in force at path: the last layer (in applied
// order) whose subtree contains it, else the baseline.
func (p *Policy) AccessAt(path string) Access {
	access := p.Baseline
	path = Clean(path)
	for _, l := range p.Layers {
		if within(Clean(l.Path), path) {
			access = l.Access
		}
	}
	return access
}

// RootSet is what a policy makes writable: the subtrees granted write,
// broadest first, and the subtrees inside them re-denied (made read-only or
// unreadable), in the order they must be applied.
type RootSet struct {
	Roots  []string `json:"roots"`
	Denied []string `json:"denied"`
}

// WritableRoots flattens the layers into write grants and their re-denials.
// A narrower write grant beneath a denial appears in Roots after the denial
// it reopens. Layers that change nothing are left out.
func (p *Policy) WritableRoots() RootSet {
	var set RootSet
	clean := p.cleanPaths()
	for i, l := range p.Layers {
		before := p.accessBefore(clean, i)
		switch {
		case l.Access == Write && before != Write:
			set.Roots = append(set.Roots, l.Path)
		case l.Access != Write && before == Write:
			set.Denied = append(set.Denied, l.Path)
		}
	}
	return set
}

// UnreadablePaths are the subtrees whose contents must be hidden: where a
// layer turns a readable subtree to deny. Under a Deny baseline the whole
// host is unreadable and only the roots granted are listed elsewhere.
func (p *Policy) UnreadablePaths() []string {
	var out []string
	clean := p.cleanPaths()
	for i, l := range p.Layers {
		if l.Access == Deny && p.accessBefore(clean, i) != Deny {
			out = append(out, l.Path)
		}
	}
	return out
}

// cleanPaths are the layers' paths, cleaned once: the loops over pairs of
// layers then compare with within, not Contains, which cleans both sides
// every time (issue 16: these loops run on every start).
func (p *Policy) cleanPaths() []string {
	out := make([]string, len(p.Layers))
	for i, l := range p.Layers {
		out[i] = Clean(l.Path)
	}
	return out
}

// accessBefore is the access at layer i's path from the layers applied
// before it; clean is p.cleanPaths().
func (p *Policy) accessBefore(clean []string, i int) Access {
	access := p.Baseline
	for j, l := range p.Layers[:i] {
		if within(clean[j], clean[i]) {
			access = l.Access
		}
	}
	return access
}
