package landlock

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

func within(dirs []string, path string) bool {
	for _, d := range dirs {
		if policy.Contains(d, path) {
			return true
		}
	}
	return false
}

// What this backend's translation lets a command do, modelled rule by
// rule for policies Resolve made from adversarial entries: a path Landlock
// lets be written (a write rule holds it and no carved path does: the
// root is granted per entry around it) that the policy does not make
// writable must be held by the seccomp guard (an absolute protected path
// or a name); a path the policy denies must not be readable (a read rule
// holds it and no read carve-out does, or a reopening deeper than the
// deepest read carve-out).
func TestPlanModelMatchesAccessAt(t *testing.T) {
	t.Parallel() // CPU-bound for tens of seconds under -race: overlap it with the package's waiting tests
	n := 0
	for seed := int64(0); seed < 800; seed++ {
		p, err := plantest.Resolved(seed)
		if err != nil || p.Mode == policy.DangerFullAccess {
			continue
		}
		n++
		plan := NewPlan(p)
		ll, sc := plan.Landlock, plan.Seccomp
		byName := p.ProtectedByNameFunc()
		probes := []string{p.Root, p.Root + "/new", "/etc/passwd"}
		for _, l := range p.Layers {
			probes = append(probes, l.Path, l.Path+"/x")
		}
		for _, a := range plantest.AdversarialPaths {
			probes = append(probes, policy.Clean(a), policy.Clean(a)+"/z")
		}
		for _, path := range probes {
			want := p.AccessAt(path)
			writable := within(ll.Write, path) && !within(ll.Carved, path)
			guarded := within(sc.Protected, path) || len(sc.NameRoots) > 0 && within(sc.NameRoots, path) && byName(path)
			if want != policy.Write && writable && !guarded {
				t.Fatalf("seed %d: %s is %v but Landlock lets it be written and no guard holds it\npolicy %+v\nplan %+v",
					seed, path, want, *p, plan)
			}
			if want == policy.Deny && readable(ll.Read, ll.ReadCarved, path) {
				t.Fatalf("seed %d: %s is denied but Landlock lets it be read\npolicy %+v\nplan %+v", seed, path, *p, plan)
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d policies resolved", n)
	}
}

// readable: the deepest read rule or read carve-out holding path is a
// read rule (ExpandCarved grants a read root per entry around the carved
// paths, and a read rule inside one reopens it).
func readable(read, carved []string, path string) bool {
	ok, depth := false, -1
	for _, r := range read {
		if policy.Contains(r, path) && policy.Depth(r) > depth {
			ok, depth = true, policy.Depth(r)
		}
	}
	for _, c := range carved {
		if policy.Contains(c, path) && policy.Depth(c) >= depth {
			ok, depth = false, policy.Depth(c)
		}
	}
	return ok
}

// Control: the model sees what it checks. A denied file inside the root
// is carved and unreadable; without its carve-outs the same plan lets it
// be written and read.
func TestPlanModelControl(t *testing.T) {
	p, err := policy.Resolve(policy.Request{}, policy.Defaults{Mode: policy.WorkspaceWrite, Root: "/w", Baseline: policy.Read,
		Entries: []policy.Entry{{Path: "/w/.env", Access: policy.Deny}}})
	if err != nil {
		t.Fatal(err)
	}
	ll := NewPlan(p).Landlock
	if !within(ll.Carved, "/w/.env") || readable(ll.Read, ll.ReadCarved, "/w/.env") || !readable(ll.Read, ll.ReadCarved, "/w/a") {
		t.Fatalf("the plan: carved %v, read %v, read carved %v", ll.Carved, ll.Read, ll.ReadCarved)
	}
	if !within(ll.Write, "/w/.env") || !readable(ll.Read, nil, "/w/.env") {
		t.Fatal("control: without carve-outs the denied file is neither writable nor readable in the model")
	}
}
