package viewplan

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// adversarialPaths are the shapes plantest does not draw: "/" itself,
// trailing slashes, dot segments and doubled slashes (Resolve must clean
// them), the temp dir, home, and paths equal to the root.
var adversarialPaths = []string{"/", "/w", "/w/", "/w/./a", "/w//a/", "/w/a/../b", "/w/a", "/w/a/b",
	"/w/a/b/c", "/w/.git", "/w/.git/hooks", "/w/.git/hooks/", "/tmp", "/tmp/w", "/tmp/rt", "/home",
	"/home/u", "/home/u/.ssh", "/w/.bashrc", "/w/a/.git/config", "/etc", "/w/../etc"}

// resolved draws a policy the way a deployment and a request make one:
// through policy.Resolve, with entries, restrictions and request
// restrictions at adversarial paths (deny inside read inside write
// inside deny, a layer at "/", an entry equal to the root or the temp
// dir). The plan's contract is resolved policies; plantest draws only
// well-behaved ones.
func resolved(seed int64) (*policy.Policy, error) {
	r := rand.New(rand.NewSource(seed))
	pick := func() string { return adversarialPaths[r.Intn(len(adversarialPaths))] }
	entries := func(n int, write bool) []policy.Entry {
		var es []policy.Entry
		for ; n > 0; n-- {
			a := policy.Access(r.Intn(2))
			if write {
				a = policy.Access(r.Intn(3))
			}
			es = append(es, policy.Entry{Path: pick(), Access: a})
		}
		return es
	}
	roots := []string{"/w", "/w/", "/tmp/w", "/home/u", "/"}
	d := policy.Defaults{Mode: policy.Mode(r.Intn(2)), Root: roots[r.Intn(len(roots))], Baseline: policy.Read,
		Entries: entries(r.Intn(6), true), Restrictions: entries(r.Intn(3), false)}
	if r.Intn(3) == 0 {
		d.Baseline = policy.Deny
	}
	if r.Intn(2) == 0 {
		d.TempDir = "/tmp/rt"
	}
	if r.Intn(3) == 0 {
		d.ExtraProtected = []string{"a/b", "secrets/key", "a"}
	}
	d.ProtectGit = []policy.GitProtection{policy.GitDefault, policy.GitReadOnly, policy.GitWritable}[r.Intn(3)]
	req := policy.Request{Entries: entries(r.Intn(3), false)}
	return policy.Resolve(req, d)
}

// FuzzResolvedPlanMatchesAccessAt is FuzzPlanMatchesAccessAt over policies
// policy.Resolve made from adversarial entries.
func FuzzResolvedPlanMatchesAccessAt(f *testing.F) {
	for i := int64(0); i < 16; i++ {
		f.Add(i)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		p, err := resolved(seed)
		if err != nil {
			return // refused input: nothing to plan
		}
		pl := New(p)
		paths := probes(p)
		for _, a := range adversarialPaths {
			paths = append(paths, policy.Clean(a), policy.Clean(a)+"/z")
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
		for _, l := range p.Layers {
			if l.Path != policy.Clean(l.Path) || strings.Contains(l.Path, "//") {
				t.Fatalf("resolved layer %q is not clean", l.Path)
			}
		}
		checkParts(t, p, pl)
	})
}

// TestResolvedPlans runs the resolved fuzz's property over a fixed
// range of seeds in every ordinary test run.
func TestResolvedPlans(t *testing.T) {
	n := 0
	for seed := int64(0); seed < 3000; seed++ {
		p, err := resolved(seed)
		if err != nil {
			continue
		}
		n++
		pl := New(p)
		for _, a := range append(probes(p), adversarialPaths...) {
			a = policy.Clean(a)
			if got, want := granted(pl, a), p.AccessAt(a); got != want {
				t.Fatalf("seed %d: %s: plan grants %v, AccessAt %v\npolicy %+v", seed, a, got, want, *p)
			}
		}
		checkParts(t, p, pl)
	}
	if n < 1000 {
		t.Fatalf("only %d of 3000 drawn policies resolved: the generator tests nothing", n)
	}
}
