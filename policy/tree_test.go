package policy

import (
	"strings"
	"testing"
)

// slowBeneath is what the walker used to ask per directory: does a layer
// strictly beneath dir grant at least Read.
func slowBeneath(p *Policy, dir string) bool {
	for _, l := range p.Layers {
		if l.Access >= Read && Contains(dir, l.Path) && Clean(l.Path) != Clean(dir) {
			return true
		}
	}
	return false
}

// walkTo descends from the base view to path one name at a time.
func walkTo(t *Tree, base, path string) *TreeDir {
	d := t.Dir(base)
	rest := strings.TrimPrefix(strings.TrimPrefix(Clean(path), Clean(base)), "/")
	if rest == "" {
		return d
	}
	for _, name := range strings.Split(rest, "/") {
		d = d.Child(name)
	}
	return d
}

func TestTreeCarveOuts(t *testing.T) {
	p := &Policy{Baseline: Read, Layers: []Layer{
		{Path: "/repo", Access: Write},
		{Path: "/repo/secret", Access: Deny},
		{Path: "/repo/secret/public", Access: Read},
		{Path: "/repo/secret/public/hidden", Access: Deny},
		{Path: "/repo/.git", Access: Read},
		{Path: "/repo-secrets", Access: Deny},
		{Path: "/repo//lib/./gen/", Access: Deny}, // unclean on purpose
	}}
	tr := p.Tree()
	for _, tc := range []struct {
		path    string
		access  Access
		beneath bool
	}{
		{"/repo", Write, true},
		{"/repo/a/b/c.go", Write, false},
		{"/repo/secret", Deny, true},
		{"/repo/secret/x", Deny, false},
		{"/repo/secret/public", Read, false},
		{"/repo/secret/public/f", Read, false},
		{"/repo/secret/public/hidden", Deny, false},
		{"/repo/secret/public/hidden/deep/f", Deny, false},
		{"/repo/secretive", Write, false},
		{"/repo/.git/hooks/pre-commit", Read, false},
		{"/repo/lib/gen/x.go", Deny, false},
		{"/repo/lib/genx", Write, false},
	} {
		d := walkTo(tr, "/", tc.path)
		if d.Access() != tc.access || d.Beneath() != tc.beneath {
			t.Errorf("%s: access %v beneath %v, want %v %v", tc.path, d.Access(), d.Beneath(), tc.access, tc.beneath)
		}
		if got := p.AccessAt(tc.path); got != tc.access {
			t.Errorf("%s: the table is wrong: AccessAt says %v", tc.path, got)
		}
	}
	// From a base inside a carve-out too.
	if d := walkTo(tr, "/repo/secret", "/repo/secret/public/f"); d.Access() != Read {
		t.Errorf("from /repo/secret: %v", d.Access())
	}
}

func TestTreeBadNamesFailClosed(t *testing.T) {
	p := &Policy{Baseline: Write}
	root := p.Tree().Dir("/repo")
	for _, name := range []string{"", ".", "..", "a/b", "../etc"} {
		c := root.Child(name)
		if c.Access() != Deny || c.Beneath() || c.Child("x").Access() != Deny {
			t.Errorf("Child(%q) = %v, want a view denying everything", name, c.Access())
		}
	}
}

func TestTreeOrderNotDepth(t *testing.T) {
	// AccessAt takes the last layer in slice order, not the deepest: an
	// unsorted policy must get the same answer from the tree.
	p := &Policy{Baseline: Deny, Layers: []Layer{
		{Path: "/r/a/b", Access: Write},
		{Path: "/r/a", Access: Read},
		{Path: "/r/a/b", Access: Deny},
		{Path: "/r", Access: Write},
	}}
	for _, path := range []string{"/r", "/r/a", "/r/a/b", "/r/a/b/c", "/r/x", "/q"} {
		if got, want := walkTo(p.Tree(), "/", path).Access(), p.AccessAt(path); got != want {
			t.Errorf("%s: tree %v, AccessAt %v", path, got, want)
		}
	}
}

var treeNames = []string{"a", "b", "ab", "a-b", ".git", "x"}

// FuzzTreeMatchesAccessAt: the per-directory decision equals the per-path
// one for every layer set, order and path, from any base on the way.
func FuzzTreeMatchesAccessAt(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{1, 2, 3}, uint8(1), uint8(0))
	f.Add([]byte{9, 9, 9, 0, 0, 0, 1, 1}, []byte{0, 0, 0, 0}, uint8(0), uint8(2))
	f.Fuzz(func(t *testing.T, layers, path []byte, baseline, baseDepth uint8) {
		if len(layers) > 64 || len(path) > 8 {
			return
		}
		p := &Policy{Baseline: Access(baseline % 3)}
		// Each layer: two bytes; the first picks depth and names, the
		// second the access and an unclean spelling.
		for i := 0; i+1 < len(layers); i += 2 {
			a, b := layers[i], layers[i+1]
			var parts []string
			for d := 0; d < int(a%4); d++ {
				parts = append(parts, treeNames[(int(a>>2)+d*int(b>>3))%len(treeNames)])
			}
			lp := "/" + strings.Join(parts, "/")
			if b&4 != 0 {
				lp += "/"
			}
			if b&8 != 0 {
				lp = strings.Replace(lp, "/", "//", 1)
			}
			p.Layers = append(p.Layers, Layer{Path: lp, Access: Access(b % 3)})
		}
		var parts []string
		for _, c := range path {
			parts = append(parts, treeNames[int(c)%len(treeNames)])
		}
		full := "/" + strings.Join(parts, "/")
		k := min(int(baseDepth), len(parts))
		base := "/" + strings.Join(parts[:k], "/")
		tr := p.Tree()
		d := walkTo(tr, base, full)
		if got, want := d.Access(), p.AccessAt(full); got != want {
			t.Fatalf("%s from %s: tree %v, AccessAt %v (layers %v)", full, base, got, want, p.Layers)
		}
		if got, want := d.Beneath(), slowBeneath(p, full); got != want {
			t.Fatalf("%s from %s: beneath %v, slow %v (layers %v)", full, base, got, want, p.Layers)
		}
		if got := tr.Dir(full); got.Access() != d.Access() || got.Beneath() != d.Beneath() {
			t.Fatalf("%s: Dir and Child disagree", full)
		}
	})
}

// The per-entry cost a walk pays: AccessAt per path against the agent
// policy's layers, or one Child per entry from the directory's view.
func agentPolicy(b *testing.B) *Policy {
	d := AgentDefaults()
	d.Root = "/home/u/repo"
	p, err := Resolve(Request{}, d)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkEntryAccessAt(b *testing.B) {
	p := agentPolicy(b)
	for b.Loop() {
		_ = p.AccessAt("/home/u/repo/src/net/http/server.go")
	}
}

func BenchmarkEntryTreeChild(b *testing.B) {
	dir := walkTo(agentPolicy(b).Tree(), "/", "/home/u/repo/src/net/http")
	for b.Loop() {
		_ = dir.Child("server.go").Access()
	}
}
