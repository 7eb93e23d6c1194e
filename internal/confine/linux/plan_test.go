package linux

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/policy"
)

func pol(mode policy.Mode, base policy.Access, layers ...policy.Layer) *policy.Policy {
	p := &policy.Policy{Mode: mode, Root: "/tmp/ws", Baseline: base, Layers: layers}
	policy.SortLayers(p.Layers)
	return p
}

func layer(path string, a policy.Access, o policy.Origin) policy.Layer {
	return policy.Layer{Path: path, Access: a, Origin: o}
}

func kinds(ops []initproc.Op) []string {
	var out []string
	for _, op := range ops {
		s := string(op.Kind) + " " + op.Target
		if op.RO {
			s += " ro"
		}
		if op.Protected {
			s += " protected"
		}
		out = append(out, s)
	}
	return out
}

func TestNewPlan(t *testing.T) {
	cases := []struct {
		name string
		p    *policy.Policy
		want []string
	}{
		{"read-only: scratch read-only; the root under /tmp still shown, read-only",
			pol(policy.ReadOnly, policy.Read),
			[]string{"proc /proc", "dev /dev ro", "tmpfs /tmp ro", "bind-ro /tmp/ws"}},
		{"a named path under /tmp is shown even at the baseline's access",
			pol(policy.ReadOnly, policy.Read, layer("/tmp/x", policy.Read, policy.FromDeployment),
				layer("/tmp/x/secret", policy.Deny, policy.FromDeployment)),
			[]string{"proc /proc", "dev /dev ro", "tmpfs /tmp ro", "bind-ro /tmp/ws", "bind-ro /tmp/x", "mask /tmp/x/secret"}},
		{"workspace under /tmp lands on the private /tmp; protected over it; pins last",
			pol(policy.WorkspaceWrite, policy.Read,
				layer("/tmp/ws", policy.Write, policy.FromMode),
				layer("/tmp/ws/.git/hooks", policy.Read, policy.FromProtected),
				layer("/tmp/ws/.git/config", policy.Read, policy.FromProtected),
				layer("/tmp/ws/.claude", policy.Read, policy.FromProtected),
				layer("/home/u/.ssh", policy.Deny, policy.FromDeployment)),
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-rw /tmp/ws",
				"bind-ro /tmp/ws/.claude protected",
				"mask /home/u/.ssh",
				"bind-ro /tmp/ws/.git/config protected", "bind-ro /tmp/ws/.git/hooks protected",
				"pin /tmp/ws/.git"}},
		{"layers that change nothing are dropped; a reopened read under a deny is bound",
			pol(policy.WorkspaceWrite, policy.Read,
				layer("/srv", policy.Read, policy.FromDeployment),
				layer("/srv/private", policy.Deny, policy.FromDeployment),
				layer("/srv/private/pub", policy.Read, policy.FromDeployment)),
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-ro /tmp/ws", "mask /srv/private", "bind-ro /srv/private/pub"}},
		{"allow-list baseline: empty base, reads bound",
			pol(policy.WorkspaceWrite, policy.Deny,
				layer("/usr", policy.Read, policy.FromDeployment),
				layer("/w", policy.Write, policy.FromMode)),
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-rw /w", "bind-ro /usr"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := NewPlan(c.p)
			if d := cmp.Diff(c.want, kinds(plan.View.Ops)); d != "" {
				t.Fatalf("ops (-want +got):\n%s", d)
			}
			if plan.View.EmptyBase != (c.p.Baseline == policy.Deny) {
				t.Fatalf("empty base %v", plan.View.EmptyBase)
			}
		})
	}
}

func TestPlanNetworkAndLandlock(t *testing.T) {
	p := pol(policy.WorkspaceWrite, policy.Read, layer("/w", policy.Write, policy.FromMode))
	for mode, want := range map[policy.NetworkMode][2]bool{
		policy.NetDeny: {true, false}, policy.NetLoopback: {true, true}, policy.NetAllowAll: {false, false},
	} {
		p.Network.Mode = mode
		plan := NewPlan(p)
		if plan.NewNet != want[0] || plan.Loopback != want[1] {
			t.Errorf("network %v: newnet %v loopback %v", mode, plan.NewNet, plan.Loopback)
		}
	}
	plan := NewPlan(p)
	if d := cmp.Diff([]string{"/dev", "/tmp", "/w"}, plan.Landlock.Write); d != "" {
		t.Errorf("landlock write (-want +got):\n%s", d)
	}
	if !plan.Seccomp.DenyUnixConnect || !cmp.Equal(plan.Seccomp.AllowUnix, []string{"/tmp", "/w"}) {
		t.Errorf("seccomp %+v", plan.Seccomp)
	}
}

func TestEnforceReportsMissingProtected(t *testing.T) {
	// secrets/key is an extra protected subpath (no name rule holds it);
	// .claude and .git/hooks are names the name guard holds.
	p := pol(policy.WorkspaceWrite, policy.Read,
		layer("/tmp/ws", policy.Write, policy.FromMode),
		layer("/tmp/ws/.git/hooks", policy.Read, policy.FromProtected),
		layer("/tmp/ws/.claude", policy.Read, policy.FromProtected),
		layer("/tmp/ws/secrets/key", policy.Read, policy.FromProtected))
	if got := NewPlan(p).Named; !cmp.Equal(got, []string{"/tmp/ws/.claude", "/tmp/ws/.git/hooks"}) {
		t.Fatalf("named %v", got)
	}
	present := map[string]bool{"/tmp/ws/.git/hooks": true}
	e := Enforce(p, NewPlan(p), func(s string) bool { return present[s] })
	if e.Files != confine.FilesPartial || len(e.Reasons) != 1 || !strings.Contains(e.Reasons[0], "secrets/key") ||
		strings.Contains(e.Reasons[0], "/tmp/ws") || strings.Contains(e.Reasons[0], ".claude") {
		t.Fatalf("enforcement %+v", e)
	}
	present["/tmp/ws/secrets/key"] = true
	if e := Enforce(p, NewPlan(p), func(s string) bool { return present[s] }); e.Files != confine.FilesFull || e.Network != confine.NetFull {
		t.Fatalf("all protected paths present: %+v", e)
	}
	// With the create guard on, a missing carve-out is held after all;
	// the named ones stay out of the absolute list (git init needs an
	// empty .git/hooks).
	delete(present, "/tmp/ws/secrets/key")
	exists := func(s string) bool { return present[s] }
	plan := Guard(NewPlan(p), exists)
	if !cmp.Equal(plan.Seccomp.Protected, []string{"/tmp/ws/secrets/key"}) {
		t.Fatalf("guarded %v", plan.Seccomp.Protected)
	}
	if e := Enforce(p, plan, exists); e.Files != confine.FilesFull {
		t.Fatalf("guarded: %+v", e)
	}
	present["/tmp/ws/secrets/key"] = true
	if plan := Guard(NewPlan(p), exists); plan.Seccomp.Protected != nil {
		t.Fatalf("nothing missing, yet guarded: %v", plan.Seccomp.Protected)
	}
	p.Network.Mode = policy.NetAllowAll
	if e := Enforce(p, NewPlan(p), func(string) bool { return true }); e.Network != confine.NetNone {
		t.Fatalf("allow-all: %+v", e)
	}
}

func TestPlanViewOptions(t *testing.T) {
	w := func(base policy.Access, ls ...policy.Layer) *policy.Policy {
		p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/ws", Baseline: base, Layers: ls}
		policy.SortLayers(p.Layers)
		return p
	}
	ws := layer("/home/u/ws", policy.Write, policy.FromMode)
	hooks := layer("/home/u/ws/.git/hooks", policy.Read, policy.FromProtected)
	ssh := layer("/home/u/.ssh", policy.Deny, policy.FromDeployment)
	home := &confine.Home{Dir: "/home/u", Upper: "/home/u/.local/state/ringfence/home/h/upper",
		Work: "/home/u/.local/state/ringfence/home/h/work", Cache: "/home/u/.local/state/ringfence/home/h/cache",
		Hide: []string{"/home/u/.local/state/ringfence"}}
	cases := []struct {
		name string
		p    *policy.Policy
		o    ViewOptions
		want []string
		ll   []string // Landlock write
	}{
		{"mount path: the workspace moves, its real path is masked, pins follow",
			w(policy.Read, ws, hooks), ViewOptions{MountPath: "/workspace", ScratchBytes: 1 << 20},
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-rw /workspace", "bind-ro /workspace/.git/hooks protected",
				"mask /home/u/ws", "pin /workspace/.git"},
			[]string{"/dev", "/tmp", "/workspace"}},
		{"home overlay below the workspace and the denied entry; state masked",
			w(policy.Read, ws, ssh), ViewOptions{Home: home},
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "overlay /home/u", "bind-rw /home/u/ws", "mask /home/u/.ssh",
				"mask /home/u/.local/state/ringfence"},
			[]string{"/dev", "/tmp", "/home/u", "/home/u/ws"}},
		{"home that is the workspace is not overlaid",
			func() *policy.Policy {
				p := w(policy.Read, layer("/home/u", policy.Write, policy.FromMode))
				p.Root = "/home/u"
				return p
			}(), ViewOptions{Home: home},
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-rw /home/u", "mask /home/u/.local/state/ringfence"},
			[]string{"/dev", "/tmp", "/home/u"}},
		{"allow-list baseline: home not overlaid",
			w(policy.Deny, ws), ViewOptions{Home: home},
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-rw /home/u/ws", "mask /home/u/.local/state/ringfence"},
			[]string{"/dev", "/tmp", "/home/u/ws"}},
		{"cache fallback: no overlay, the cache bound in the private /tmp",
			w(policy.Read, ws), ViewOptions{Home: home, HomeCacheAt: HomeCacheView},
			[]string{"proc /proc", "dev /dev", "tmpfs /tmp", "bind-rw /tmp/.ringfence-cache", "bind-rw /home/u/ws",
				"mask /home/u/.local/state/ringfence"},
			[]string{"/dev", "/tmp", HomeCacheView, "/home/u/ws"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan := NewPlanWith(c.p, c.o)
			if d := cmp.Diff(c.want, kinds(plan.View.Ops)); d != "" {
				t.Fatalf("ops (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.ll, plan.Landlock.Write); d != "" {
				t.Fatalf("landlock write (-want +got):\n%s", d)
			}
			if plan.View.SynthRoot != (c.o.MountPath != "" && c.p.Baseline != policy.Deny) {
				t.Fatalf("synth root %v", plan.View.SynthRoot)
			}
			for _, op := range plan.View.Ops {
				if (op.Kind == initproc.Tmpfs || op.Kind == initproc.Dev) && op.Size != c.o.ScratchBytes {
					t.Fatalf("%s size %d", op.Target, op.Size)
				}
			}
		})
	}
	// Guarded carve-outs follow the workspace to its mount path: a
	// read-only path by its absolute path, a protected name (.git/hooks)
	// by the name guard, whose roots follow too.
	ro := layer("/home/u/ws/vendor", policy.Read, policy.FromDeployment)
	p := w(policy.Read, ws, hooks, ro)
	plan := Guard(NewPlanWith(p, ViewOptions{MountPath: "/workspace"}), func(string) bool { return false })
	if d := cmp.Diff([]string{"/workspace/vendor"}, plan.Seccomp.Protected); d != "" {
		t.Fatalf("guarded (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"/workspace"}, plan.Seccomp.NameRoots); d != "" {
		t.Fatalf("guarded (-want +got):\n%s", d)
	}
	if e := Enforce(p, plan, func(string) bool { return false }); e.Files != confine.FilesFull {
		t.Fatalf("enforcement %+v", e)
	}
}

func TestScratchSize(t *testing.T) {
	for _, c := range [][3]int64{{0, 0, 1 << 30}, {0, 16 << 30, 1 << 30}, {0, 2 << 30, 512 << 20}, {5 << 20, 16 << 30, 5 << 20}} {
		if got := confine.ScratchSize(c[0], c[1]); got != c[2] {
			t.Errorf("ScratchSize(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}
