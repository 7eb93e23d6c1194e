package landlock

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

func TestNewPlan(t *testing.T) {
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Baseline: policy.Read, Layers: []policy.Layer{
		{Path: "/w", Access: policy.Write, Origin: policy.FromMode},
		{Path: "/w/.git/hooks", Access: policy.Read, Origin: policy.FromProtected},
		{Path: "/w/vendor", Access: policy.Read, Origin: policy.FromDeployment},
		{Path: "/home/u/.ssh", Access: policy.Deny, Origin: policy.FromDeployment},
		{Path: "/home/u/.ssh/pub", Access: policy.Read, Origin: policy.FromDeployment},
	}}
	policy.SortLayers(p.Layers)
	plan := NewPlan(p)
	ll := plan.Landlock
	if !cmp.Equal(ll.Read, []string{"/", "/home/u/.ssh/pub"}) || !cmp.Equal(ll.ReadCarved, []string{"/home/u/.ssh"}) {
		t.Errorf("read %v carved %v", ll.Read, ll.ReadCarved)
	}
	// Nothing is carved with Landlock (it would forbid new files in /w and
	// /w/.git): the read-only path the person asked for and the protected
	// one are held by the seccomp guard, deletions included.
	if len(ll.Carved) != 0 || ll.Write[len(ll.Write)-1] != "/w" || !ll.Required {
		t.Errorf("write %v carved %v", ll.Write, ll.Carved)
	}
	// The guard holds it instead: by name, with the command's Landlock
	// domain on the supervisor's acting threads.
	sc := plan.Seccomp
	if !cmp.Equal(sc.NameRoots, []string{"/w"}) || !sc.ConfineGuard || !cmp.Equal(sc.Protected, []string{"/w/vendor"}) || !sc.GuardRemove {
		t.Errorf("guard %+v", sc)
	}
	if e := Enforce(p, plan, 7); strings.Contains(strings.Join(e.Reasons, ";"), "stay writable") ||
		!strings.Contains(strings.Join(e.Reasons, ";"), "held by the seccomp guard") {
		t.Errorf("reasons: %v", e.Reasons)
	}
	// A generated protected path no name rule covers is held by path.
	p.Layers = append(p.Layers, policy.Layer{Path: "/w/secrets/key", Access: policy.Read, Origin: policy.FromProtected})
	policy.SortLayers(p.Layers)
	if got := NewPlan(p).Seccomp.Protected; !cmp.Equal(got, []string{"/w/secrets/key", "/w/vendor"}) {
		t.Errorf("absolute guard %v", got)
	}
	if !ll.RestrictTCP || !plan.Seccomp.DenyInet || !plan.Seccomp.DenyUnixConnect {
		t.Errorf("deny network: %+v %+v", ll, plan.Seccomp)
	}
	p.Network.Mode = policy.NetAllowAll
	if plan := NewPlan(p); plan.Landlock.RestrictTCP || plan.Seccomp.DenyInet {
		t.Errorf("allow-all restricted: %+v", plan)
	}
}

func TestEnforceIsNeverFull(t *testing.T) {
	for _, mode := range []policy.NetworkMode{policy.NetDeny, policy.NetLoopback, policy.NetAllowAll} {
		p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Network: policy.Network{Mode: mode},
			Layers: []policy.Layer{{Path: "/w", Access: policy.Write}, {Path: "/w/.claude", Access: policy.Read, Origin: policy.FromProtected}}}
		e := Enforce(p, NewPlan(p), 7)
		if e.Files != confine.FilesPartial || len(e.Reasons) == 0 {
			t.Errorf("%v: %+v", mode, e)
		}
		if want := map[policy.NetworkMode]confine.Net{policy.NetAllowAll: confine.NetNone}[mode]; want != "" && e.Network != want {
			t.Errorf("%v: network %v", mode, e.Network)
		}
		if mode != policy.NetAllowAll && (e.Network != confine.NetFull || strings.Contains(strings.Join(e.Reasons, ";"), "abstract")) {
			t.Errorf("%v: network %v reasons %v (host abstract sockets are peer-checked)", mode, e.Network, e.Reasons)
		}
		if e := Enforce(p, NewPlan(p), 8); mode != policy.NetAllowAll && e.Network != confine.NetFull {
			t.Errorf("%v at ABI 8: network %v", mode, e.Network)
		}
	}
}

func TestUnavailable(t *testing.T) {
	prov := New(Options{ForceUnavailable: "simulated: no Landlock"})
	if err := prov.Available(); err == nil {
		t.Fatal("forced unavailable is available")
	}
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w"}
	if _, err := prov.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: p}); err == nil {
		t.Fatal("confined without Landlock")
	}
	if _, err := prov.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: &policy.Policy{Mode: policy.DangerFullAccess}}); err != confine.ErrNotConfining {
		t.Fatalf("danger-full-access: %v", err)
	}
}

func TestKeepExisting(t *testing.T) {
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Baseline: policy.Read, Layers: []policy.Layer{
		{Path: "/w", Access: policy.Write, Origin: policy.FromMode},
		{Path: "/w/.git/hooks", Access: policy.Read, Origin: policy.FromProtected},
		{Path: "/w/.claude", Access: policy.Read, Origin: policy.FromProtected},
	}}
	policy.SortLayers(p.Layers)
	plan := KeepExisting(p, NewPlan(p), func(s string) bool { return s == "/w/.git/hooks" })
	if !cmp.Equal(plan.Seccomp.Protected, []string{"/w/.git/hooks"}) || !plan.Seccomp.GuardRemove {
		t.Fatalf("existing protected path not kept by path: %+v", plan.Seccomp)
	}
	if plan := KeepExisting(p, NewPlan(p), func(string) bool { return false }); len(plan.Seccomp.Protected) != 0 || plan.Seccomp.GuardRemove {
		t.Fatalf("missing ones must stay with the name guard (git init): %+v", plan.Seccomp)
	}
}

// A deny nested in a read-only carve-out inside a writable root (the
// ringfence config dir in a read-only ~/.config, with the workspace at ~)
// is carved from the root's grant: the read-only parent is held by the
// guard, not Landlock, so without this the root's grant reads through.
func TestDenyNestedInReadOnlyIsCarved(t *testing.T) {
	d := policy.AgentDefaults()
	d.Root, d.TempDir = "/home/u", "/tmp/rf"
	d.Restrictions = []policy.Entry{{Path: "/home/u/.config", Access: policy.Read}, {Path: "/home/u/.config/ringfence", Access: policy.Deny}}
	p, err := policy.Resolve(policy.Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	plan := NewPlan(p)
	if !slices.Contains(plan.Landlock.Carved, "/home/u/.config/ringfence") {
		t.Fatalf("the nested deny is not carved from the writable root: %+v", plan.Landlock)
	}
}
