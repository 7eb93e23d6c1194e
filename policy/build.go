package policy

import (
	"path"

	"github.com/ringfence/ringfence/pathrule"
)

// builder accumulates layers. Its accessAt does not depend on the order of
// the slice (deepest layer wins, then the later origin), so layers can be
// added in any order and sorted once at the end. It holds at most one layer
// per (path, origin).
type builder struct {
	baseline Access
	layers   []Layer
}

func (b *builder) add(p string, a Access, o Origin) {
	for i, l := range b.layers {
		if l.Path == p && l.Origin == o {
			b.layers[i].Access = a
			return
		}
	}
	b.layers = append(b.layers, Layer{Path: p, Access: a, Origin: o})
}

// accessAt is Policy.AccessAt over the unsorted layers.
func (b *builder) accessAt(p string) Access {
	access, bestDepth, bestOrigin := b.baseline, -1, Origin(-1)
	for _, l := range b.layers {
		if !within(l.Path, p) {
			continue
		}
		// Depth among layers containing p is the path length.
		if d := len(l.Path); d > bestDepth || (d == bestDepth && l.Origin > bestOrigin) {
			access, bestDepth, bestOrigin = l.Access, d, l.Origin
		}
	}
	return access
}

// lower layers access a at p with origin o if that lowers what is in force
// there; it never raises anything.
func (b *builder) lower(p string, a Access, o Origin) {
	if cur := b.accessAt(p); a < cur {
		b.add(p, a, o)
	}
}

// restrict applies one request restriction as a cap over its subtree: at
// its path and at every deeper layer that would otherwise grant more. That
// is intersection, so a read entry beneath a denied parent stays denied and
// a deeper deployment write grant beneath it is capped too.
func (b *builder) restrict(e Entry, o Origin) {
	var deeper []string
	for _, l := range b.layers {
		if l.Path != e.Path && within(e.Path, l.Path) {
			deeper = append(deeper, l.Path)
		}
	}
	b.lower(e.Path, e.Access, o)
	for _, p := range deeper {
		b.lower(p, e.Access, o)
	}
}

// finish sorts the layers and drops every layer that changes nothing — one
// shadowed by a later layer at the same path, or one that sets the access
// already in force — so a backend is never handed a rule without effect.
func (b *builder) finish() []Layer {
	SortLayers(b.layers)
	var kept []Layer
	for i, l := range b.layers {
		if shadowed(b.layers[i+1:], l.Path) {
			continue // a later layer, at the same path, overrides this one
		}
		before := b.baseline
		for _, k := range kept {
			if within(k.Path, l.Path) {
				before = k.Access
			}
		}
		if before != l.Access || namedScratch(l) {
			kept = append(kept, l)
		}
	}
	return kept
}

// shadowed reports whether a later layer (of the sorted rest) sits at
// path. Layers at one path are not always adjacent: SortLayers orders a
// depth by origin before path, so a deployment layer at another path of
// that depth can sort between the mode's write grant at the root and a
// request's read restriction of it. Keeping both would hand backends a
// root and a carve-out at the same path (policy.WritableRoots lists the
// path in both), which a backend that cannot subtract (Landlock) grants.
func shadowed(rest []Layer, path string) bool {
	for _, l := range rest {
		if l.Path == path {
			return true
		}
	}
	return false
}

// namedScratch reports a readable layer the deployment named under /tmp.
// Every confining backend gives the command a private /tmp, so such a
// path is hidden unless a layer says to show it, even when that layer
// grants what the baseline does.
func namedScratch(l Layer) bool {
	return l.Access == Read && l.Origin >= FromDeployment && l.Path != "/tmp" && within("/tmp", l.Path)
}

// within is Contains for paths already clean, as every builder path is.
func within(root, p string) bool {
	return root == "/" || root == p || (len(p) > len(root) && p[len(root)] == '/' && p[:len(root)] == root)
}

// buildLayers fills p.Baseline and p.Layers: the mode's grant, deployment
// entries, request restrictions, approved entries, then protected subpaths
// under every write grant (approved ones included).
func buildLayers(p *Policy, req Request, d Defaults, g *Grant) error {
	in, err := checkLayerInputs(req, d, g)
	if err != nil {
		return err
	}
	b := &builder{baseline: d.Baseline}
	switch p.Mode {
	case DangerFullAccess:
		b.baseline = Write // nothing is confined; layers only inform the in-process fence
	case WorkspaceWrite:
		b.add(p.Root, Write, FromMode)
		if p.TempDir != "" {
			b.add(p.TempDir, Write, FromMode)
		}
	}
	for _, e := range in.deployment {
		if p.Mode == ReadOnly && e.Access == Write {
			e.Access = Read // read-only means nothing writable unless approved
		}
		b.add(e.Path, e.Access, FromDeployment)
	}
	// The roots before any restriction: a root a request (or a standing
	// restriction) narrows keeps the protection it had — its .git pointer
	// may name a gitdir inside another, still writable root (a linked
	// worktree's metadata under the main repository's .git/worktrees), and
	// narrowing must never widen there. Protection only lowers, so the
	// extra roots can add nothing.
	unrestricted := (&Policy{Baseline: b.baseline, Layers: b.finish()}).WritableRoots().Roots
	for _, e := range in.standing {
		b.restrict(e, FromDeployment)
	}
	for _, e := range in.request {
		if e.Access != Write { // a covered write entry is granted by the approval
			b.restrict(e, FromRequest)
		}
	}
	for _, e := range in.approved {
		b.add(e.Path, e.Access, FromApproval)
	}
	if p.Mode != DangerFullAccess {
		protectAll(b, d, in.extra, unrestricted)
	}
	p.Baseline, p.Layers = b.baseline, b.finish()
	return nil
}

type layerInputs struct {
	deployment, standing, request, approved []Entry
	extra                                   []string
}

// checkLayerInputs validates every path and access, and refuses a request
// write entry that no approved write entry covers.
func checkLayerInputs(req Request, d Defaults, g *Grant) (in layerInputs, err error) {
	if d.Baseline != Read && d.Baseline != Deny {
		return in, &InvalidError{Field: "baseline", Value: d.Baseline.String(), Reason: "want read or deny"}
	}
	if d.ProtectGit != GitDefault && d.ProtectGit != GitReadOnly && d.ProtectGit != GitWritable {
		return in, &InvalidError{Field: "protect_git", Value: string(d.ProtectGit)}
	}
	if in.deployment, err = checkEntries("entry", d.Entries); err != nil {
		return in, err
	}
	if in.standing, err = checkEntries("restriction", d.Restrictions); err != nil {
		return in, err
	}
	for _, e := range in.standing {
		if e.Access == Write {
			return in, &InvalidError{Field: "restriction", Value: e.Path, Reason: "a restriction may only be read or deny"}
		}
	}
	if in.request, err = checkEntries("request entry", req.Entries); err != nil {
		return in, err
	}
	if g != nil {
		if in.approved, err = checkEntries("approval entry", g.Entries); err != nil {
			return in, err
		}
	}
	for _, e := range in.request {
		if e.Access == Write && !writeCovered(in.approved, e.Path) {
			return in, &EscalationError{What: "write entry", Path: e.Path}
		}
	}
	for _, s := range d.ExtraProtected {
		c, err := pathrule.Clean(s)
		if err != nil {
			return in, &InvalidError{Field: "protected", Value: s, Reason: "want a relative path inside the root"}
		}
		in.extra = append(in.extra, c)
	}
	return in, nil
}

func writeCovered(approved []Entry, p string) bool {
	for _, e := range approved {
		if e.Access == Write && Contains(e.Path, p) {
			return true
		}
	}
	return false
}

func join(root, rel string) string { return Clean(path.Join(root, rel)) }
