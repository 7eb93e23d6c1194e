package viewplan

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// granted is what the plan grants at path, read off its parts the way the
// backends apply them: writable where the deepest root or carve-out
// holding path is a root; readable where the deepest hidden or reopened
// step is a reopening, or, under neither, where the baseline reads.
func granted(pl *Plan, path string) policy.Access {
	write, wDepth := false, -1
	for _, r := range pl.Roots {
		if policy.Contains(r, path) && policy.Depth(r) > wDepth {
			write, wDepth = true, policy.Depth(r)
		}
	}
	for _, c := range pl.CarveOuts {
		if policy.Contains(c.Path, path) && policy.Depth(c.Path) > wDepth {
			write, wDepth = false, policy.Depth(c.Path)
		}
	}
	if write {
		return policy.Write
	}
	read, rDepth := pl.Policy.Baseline != policy.Deny, -1
	for _, s := range append(append([]Step(nil), pl.Hidden...), pl.Reopened...) {
		if policy.Contains(s.Path, path) && policy.Depth(s.Path) > rDepth {
			read, rDepth = s.Access != policy.Deny, policy.Depth(s.Path)
		}
	}
	if read {
		return policy.Read
	}
	return policy.Deny
}

// mounted is the access the changing steps alone give path, applied in
// order as mounts are (a step that grants what its path had is skipped).
func mounted(base policy.Access, steps []Step, path string) policy.Access {
	a := base
	for _, s := range steps {
		if s.Changes() && policy.Contains(s.Path, path) {
			a = s.Access
		}
	}
	return a
}

// probes are the paths worth asking about: every layer, the root, their
// parents and a child beneath each.
func probes(p *policy.Policy) []string {
	out := []string{"/", p.Root, p.Root + "/new", "/tmp", "/home/u/.ssh/key"}
	for _, l := range p.Layers {
		out = append(out, l.Path, parent(l.Path), l.Path+"/x", l.Path+"/.git/hooks")
	}
	return out
}

// FuzzPlanMatchesAccessAt: for random resolved policies, the plan grants at
// every path exactly policy.AccessAt — read off its roots, carve-outs,
// hidden and reopened steps, and off its changing steps (the mounts) in
// either layer list — and its derived parts agree with the policy: roots
// and carve-outs are WritableRoots, hidden ones UnreadablePaths, every
// pin a writable directory strictly inside its root on the way to a
// carve-out, every guard name a protected carve-out.
func FuzzPlanMatchesAccessAt(f *testing.F) {
	for _, s := range []string{"", "a", "seed", "\x00\x01\x02", "deny-list", "workspace", "zz9", "\xff\xfe"} {
		f.Add([]byte(s), []byte("x"))
	}
	f.Fuzz(func(t *testing.T, seed, extra []byte) {
		p := plantest.FromBytes(seed)
		pl := New(p)
		paths := probes(p)
		if len(extra) > 0 && len(extra) < 64 {
			paths = append(paths, policy.Clean(strings.ReplaceAll(string(extra), "\x00", "")))
		}
		for _, path := range paths {
			want := p.AccessAt(path)
			if got := granted(pl, path); got != want {
				t.Fatalf("%s: plan grants %v, AccessAt %v\npolicy %+v\nplan %+v", path, got, want, *p, *pl)
			}
			if got := mounted(p.Baseline, pl.Steps, path); got != want {
				t.Fatalf("%s: steps give %v, AccessAt %v", path, got, want)
			}
			if got := mounted(p.Baseline, pl.Shown, path); got != want {
				t.Fatalf("%s: shown steps give %v, AccessAt %v", path, got, want)
			}
		}
		checkParts(t, p, pl)
	})
}

func checkParts(t *testing.T, p *policy.Policy, pl *Plan) {
	t.Helper()
	rs := p.WritableRoots()
	if !equal(pl.Roots, rs.Roots) || !equal(paths(pl.CarveOuts), rs.Denied) || !equal(paths(pl.Hidden), p.UnreadablePaths()) {
		t.Fatalf("roots %v / %v, carve-outs %v / %v, hidden %v / %v", pl.Roots, rs.Roots,
			paths(pl.CarveOuts), rs.Denied, paths(pl.Hidden), p.UnreadablePaths())
	}
	for _, pin := range pl.Pins {
		if p.AccessAt(pin.Dir) != policy.Write || pin.Dir == pin.Root || !policy.Contains(pin.Root, pin.Dir) ||
			pin.Dir == pin.Cause.Path || !policy.Contains(pin.Dir, pin.Cause.Path) {
			t.Fatalf("pin %+v", pin)
		}
	}
	carved := map[string]Step{}
	for _, c := range pl.CarveOuts {
		carved[c.Path] = c
	}
	for _, n := range pl.GuardNames {
		if c, ok := carved[n]; !ok || c.Origin != policy.FromProtected || !p.ProtectedByName(n) {
			t.Fatalf("guard name %s is not a protected carve-out held by name", n)
		}
	}
	ro, denied := pl.Explicit()
	byPath, byName := pl.Protected()
	for _, c := range append(append([]string(nil), ro...), denied...) {
		if carved[c].Origin == policy.FromProtected {
			t.Fatalf("explicit carve-out %s is a generated one", c)
		}
	}
	for _, c := range append(byPath, byName...) {
		if p.AccessAt(c) == policy.Write {
			t.Fatalf("protected %s is writable", c)
		}
	}
}

func paths(ss []Step) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Path)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
