package policy

import (
	"reflect"
	"strings"
	"testing"
)

// The layer loops as they were before they cleaned each path once (every
// pair through Contains): the reference the faster ones must match.
func accessAtSlow(p *Policy, path string) Access {
	access := p.Baseline
	for _, l := range p.Layers {
		if containsSlow(l.Path, path) {
			access = l.Access
		}
	}
	return access
}

func accessBeforeSlow(p *Policy, i int, path string) Access {
	access := p.Baseline
	for _, l := range p.Layers[:i] {
		if containsSlow(l.Path, path) {
			access = l.Access
		}
	}
	return access
}

func writableRootsSlow(p *Policy) RootSet {
	var set RootSet
	for i, l := range p.Layers {
		before := accessBeforeSlow(p, i, l.Path)
		switch {
		case l.Access == Write && before != Write:
			set.Roots = append(set.Roots, l.Path)
		case l.Access != Write && before == Write:
			set.Denied = append(set.Denied, l.Path)
		}
	}
	return set
}

func unreadablePathsSlow(p *Policy) []string {
	var out []string
	for i, l := range p.Layers {
		if l.Access == Deny && accessBeforeSlow(p, i, l.Path) != Deny {
			out = append(out, l.Path)
		}
	}
	return out
}

// FuzzLayersMatchSlow: AccessAt, WritableRoots and UnreadablePaths answer
// as the Contains-every-pair versions on layers spelled cleanly or not
// (trailing slash, doubled slash, ".", "..", relative).
func FuzzLayersMatchSlow(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, []byte{1, 2, 3}, uint8(1))
	f.Add([]byte{9, 9, 9, 0, 0, 0, 1, 1, 0x40, 0x80}, []byte{0, 0, 0, 0}, uint8(0))
	spell := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return s + "/" },
		func(s string) string { return strings.Replace(s, "/", "//", 1) },
		func(s string) string { return s + "/." },
		func(s string) string { return s + "/x/.." },
		func(s string) string { return strings.TrimPrefix(s, "/") },
	}
	f.Fuzz(func(t *testing.T, layers, path []byte, baseline uint8) {
		if len(layers) > 64 || len(path) > 8 {
			return
		}
		p := &Policy{Baseline: Access(baseline % 3)}
		for i := 0; i+1 < len(layers); i += 2 {
			a, b := layers[i], layers[i+1]
			var parts []string
			for d := 0; d < int(a%4); d++ {
				parts = append(parts, treeNames[(int(a>>2)+d*int(b>>3))%len(treeNames)])
			}
			lp := spell[int(b>>5)%len(spell)]("/" + strings.Join(parts, "/"))
			p.Layers = append(p.Layers, Layer{Path: lp, Access: Access(b % 3)})
		}
		var parts []string
		for _, c := range path {
			parts = append(parts, treeNames[int(c)%len(treeNames)])
		}
		q := "/" + strings.Join(parts, "/")
		for _, s := range spell {
			if got, want := p.AccessAt(s(q)), accessAtSlow(p, s(q)); got != want {
				t.Fatalf("AccessAt(%q) = %v, want %v; layers %v", s(q), got, want, p.Layers)
			}
		}
		if got, want := p.WritableRoots(), writableRootsSlow(p); !reflect.DeepEqual(got, want) {
			t.Fatalf("WritableRoots = %+v, want %+v; layers %v", got, want, p.Layers)
		}
		if got, want := p.UnreadablePaths(), unreadablePathsSlow(p); !reflect.DeepEqual(got, want) {
			t.Fatalf("UnreadablePaths = %v, want %v; layers %v", got, want, p.Layers)
		}
	})
}
