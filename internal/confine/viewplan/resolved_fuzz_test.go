package viewplan

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// FuzzResolvedPlanMatchesAccessAt is FuzzPlanMatchesAccessAt over policies
// policy.Resolve made from adversarial entries (plantest.Resolved).
func FuzzResolvedPlanMatchesAccessAt(f *testing.F) {
	for i := int64(0); i < 16; i++ {
		f.Add(i)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		p, err := plantest.Resolved(seed)
		if err != nil {
			return // refused input: nothing to plan
		}
		pl := New(p)
		paths := probes(p)
		for _, a := range plantest.AdversarialPaths {
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
	for seed := int64(0); seed < 1200; seed++ {
		p, err := plantest.Resolved(seed)
		if err != nil {
			continue
		}
		n++
		pl := New(p)
		for _, a := range append(probes(p), plantest.AdversarialPaths...) {
			a = policy.Clean(a)
			if got, want := granted(pl, a), p.AccessAt(a); got != want {
				t.Fatalf("seed %d: %s: plan grants %v, AccessAt %v\npolicy %+v", seed, a, got, want, *p)
			}
		}
		checkParts(t, p, pl)
	}
	if n < 400 {
		t.Fatalf("only %d of 1200 drawn policies resolved: the generator tests nothing", n)
	}
}
