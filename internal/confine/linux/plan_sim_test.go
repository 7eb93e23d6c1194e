package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// simMount is one mount of the simulated view.
type simMount struct {
	target string
	access policy.Access
	fresh  bool // content of the view's own (a tmpfs, proc, dev), not the host's
}

// simulate applies the plan's mount ops in order the way the init does: a
// mount at T hides every earlier mount strictly beneath T (a bind clones
// the host's tree, not the view's), a pin keeps what is there. It returns
// what the view gives path: the deepest mount holding it, whether that
// content is the host's, and whether Landlock lets it be written.
func simulate(plan Plan, path string) (a policy.Access, host bool) {
	base := simMount{target: "/", access: policy.Read}
	if plan.View.EmptyBase {
		base.access = policy.Deny
	}
	ms := []simMount{base}
	for _, op := range plan.View.Ops {
		var m simMount
		m.target = op.Target
		switch op.Kind {
		case initproc.Pin:
			continue
		case initproc.BindRW:
			m.access = policy.Write
		case initproc.BindRO:
			m.access = policy.Read
		case initproc.Mask:
			m.access = policy.Deny
		default:
			m.access, m.fresh = policy.Write, true
		}
		kept := ms[:0]
		for _, o := range ms {
			if o.target == m.target || !policy.Contains(m.target, o.target) {
				kept = append(kept, o)
			}
		}
		ms = append(kept, m)
	}
	best := -1
	for i, m := range ms {
		if policy.Contains(m.target, path) && (best < 0 || policy.Depth(m.target) >= policy.Depth(ms[best].target)) {
			best = i
		}
	}
	m := ms[best]
	if best == 0 && plan.Mount.Active() && policy.Contains(plan.Mount.To, path) {
		// The mount path is not on the host (SynthRoot): with no mount
		// there, nothing is — the view shows no host content.
		return policy.Deny, false
	}
	if m.access == policy.Write {
		w := false
		for _, r := range plan.Landlock.Write {
			w = w || policy.Contains(r, path)
		}
		if !w {
			m.access = policy.Read
		}
	}
	return m.access, !m.fresh
}

// The linux backend's translation, simulated mount by mount with its
// Landlock write rules on top, grants at every host-backed path exactly
// policy.AccessAt, for policies Resolve made from adversarial entries:
// no mount order, pin or fresh system mount lets a backend grant more
// (or less) than the plan.
func TestPlanSimulatedMatchesAccessAt(t *testing.T) {
	t.Parallel() // CPU-bound for tens of seconds under -race: overlap it with the package's waiting tests
	n := 0
	for seed := int64(0); seed < 800; seed++ {
		p, err := plantest.Resolved(seed)
		if err != nil || p.Mode == policy.DangerFullAccess {
			continue
		}
		n++
		plan := NewPlan(p)
		probes := []string{p.Root, p.Root + "/new", "/etc/passwd"}
		for _, l := range p.Layers {
			probes = append(probes, l.Path, l.Path+"/x")
		}
		for _, a := range plantest.AdversarialPaths {
			probes = append(probes, policy.Clean(a), policy.Clean(a)+"/z")
		}
		plans := []Plan{plan}
		if confine.CheckMountPath(p, "/workspace") == nil {
			plans = append(plans, NewPlanWith(p, ViewOptions{MountPath: "/workspace"}))
		}
		for _, plan := range plans {
			for _, path := range probes {
				got, host := simulate(plan, plan.Mount.View(path))
				if !host {
					continue // the view's own /tmp, /dev, /proc: not the host's content
				}
				if want := p.AccessAt(path); got != want {
					t.Fatalf("seed %d: %s (at %s): view gives %v, AccessAt %v\npolicy %+v\nops %+v\nlandlock write %v",
						seed, path, plan.Mount.View(path), got, want, *p, plan.View.Ops, plan.Landlock.Write)
				}
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d policies resolved", n)
	}
}

// Control: the simulation is sensitive to what it checks. The same
// policy with its mount ops applied narrowest first, or without its
// Landlock write rules, disagrees with AccessAt.
func TestPlanSimulatedControl(t *testing.T) {
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Cwd: "/w", Baseline: policy.Read, Layers: []policy.Layer{
		{Path: "/w", Access: policy.Write, Origin: policy.FromMode},
		{Path: "/w/.git/hooks", Access: policy.Read, Origin: policy.FromProtected}}}
	plan := NewPlan(p)
	if a, _ := simulate(plan, "/w/.git/hooks/pre-commit"); a != policy.Read {
		t.Fatalf("the plan itself: %v", a)
	}
	rev := plan
	rev.View.Ops = nil
	for i := len(plan.View.Ops) - 1; i >= 0; i-- {
		rev.View.Ops = append(rev.View.Ops, plan.View.Ops[i])
	}
	if a, _ := simulate(rev, "/w/.git/hooks/pre-commit"); a != policy.Write {
		t.Fatalf("reversed ops: the carve-out still holds (%v): the simulation ignores order", a)
	}
	noLL := plan
	noLL.Landlock.Write = []string{"/"}
	noLL.View.Ops = append([]initproc.Op{}, plan.View.Ops...)
	noLL.View.Ops = append(noLL.View.Ops, initproc.Op{Kind: initproc.BindRW, Target: "/etc"})
	if a, _ := simulate(noLL, "/etc/passwd"); a != policy.Write {
		t.Fatalf("a stray writable bind is not seen (%v)", a)
	}
}
