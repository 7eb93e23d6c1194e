package policy

import "testing"

// A request that makes the workspace root read-only, with a deployment
// entry of the same depth elsewhere: SortLayers puts that entry between
// the mode's write grant and the request's restriction, so the two root
// layers are not adjacent. Resolve must still keep only the later one —
// otherwise WritableRoots lists the root as a root and as a carve-out, and
// a backend that cannot subtract (Landlock) grants write there.
func TestResolveDropsShadowedLayerNotAdjacent(t *testing.T) {
	d := Defaults{Mode: WorkspaceWrite, Root: "/home/u", Baseline: Read,
		Entries: []Entry{{Path: "/etc/x", Access: Deny}}}
	req := Request{Entries: []Entry{{Path: "/home/u", Access: Read}}}
	p, err := Resolve(req, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.Layers {
		if l.Path == "/home/u" && l.Access != Read {
			t.Fatalf("root layer %+v survives the request's read restriction: %+v", l, p.Layers)
		}
	}
	if a := p.AccessAt("/home/u/f"); a != Read {
		t.Fatalf("access in the root %v, want read", a)
	}
	if rs := p.WritableRoots(); len(rs.Roots) != 0 || len(rs.Denied) != 0 {
		t.Fatalf("writable roots %+v of a read-only root, want none", rs)
	}
	// Control: without the entry in between the layers are adjacent.
	d.Entries = nil
	if p, err = Resolve(req, d); err != nil || len(p.WritableRoots().Roots) != 0 {
		t.Fatalf("control: %v %+v", err, p)
	}
}
