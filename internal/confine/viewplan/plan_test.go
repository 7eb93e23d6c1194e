package viewplan

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/policy"
)

func layer(path string, a policy.Access, o policy.Origin) policy.Layer {
	return policy.Layer{Path: path, Access: a, Origin: o}
}

// summary is a plan's parts as path lists, for the table.
type summary struct {
	Roots, CarveOuts, Hidden, Reopened, Pins, PinRoots, GuardNames, Added []string
}

func summarize(pl *Plan) summary {
	var s summary
	s.Roots = pl.Roots
	s.CarveOuts, s.Hidden, s.Reopened = paths(pl.CarveOuts), paths(pl.Hidden), paths(pl.Reopened)
	for _, p := range pl.Pins {
		s.Pins = append(s.Pins, p.Dir)
		s.PinRoots = append(s.PinRoots, p.Root)
	}
	s.GuardNames = pl.GuardNames
	for _, st := range pl.Shown {
		if st.Added {
			s.Added = append(s.Added, fmt.Sprintf("%s:%v@%d", st.Path, st.Access, st.Index))
		}
	}
	return s
}

func TestNew(t *testing.T) {
	const (
		mode = policy.FromMode
		prot = policy.FromProtected
		dep  = policy.FromDeployment
		req  = policy.FromRequest
	)
	tests := []struct {
		name     string
		gitOK    bool // protect_git = writable
		baseline policy.Access
		root     string
		layers   []policy.Layer
		want     summary
	}{{
		name: "workspace-write with protected paths: carve-outs, pins and the name guard",
		root: "/w", baseline: policy.Read,
		layers: []policy.Layer{layer("/w", policy.Write, mode), layer("/w/.bashrc", policy.Read, prot),
			layer("/w/.git/hooks", policy.Read, prot), layer("/w/secrets/key", policy.Read, prot)},
		want: summary{Roots: []string{"/w"}, CarveOuts: []string{"/w/.bashrc", "/w/.git/hooks", "/w/secrets/key"},
			Pins: []string{"/w/.git", "/w/secrets"}, PinRoots: []string{"/w", "/w"},
			GuardNames: []string{"/w/.bashrc", "/w/.git/hooks"}},
	}, {
		name: "read-only mode under a deny-list: the root is shown though no layer names it",
		root: "/tmp/w", baseline: policy.Read,
		layers: []policy.Layer{layer("/home/u/.ssh", policy.Deny, dep)},
		want:   summary{Hidden: []string{"/home/u/.ssh"}, Added: []string{"/tmp/w:read@0"}},
	}, {
		name: "a denied root is not shown",
		root: "/w", baseline: policy.Read,
		layers: []policy.Layer{layer("/w", policy.Deny, req)},
		want:   summary{Hidden: []string{"/w"}},
	}, {
		name: "allow-list: every grant reopens, a deny inside one hides again",
		root: "/w", baseline: policy.Deny,
		layers: []policy.Layer{layer("/usr", policy.Read, dep), layer("/w", policy.Write, mode), layer("/w/.env", policy.Deny, req)},
		want: summary{Roots: []string{"/w"}, CarveOuts: []string{"/w/.env"}, Hidden: []string{"/w/.env"},
			Reopened: []string{"/w", "/usr"}},
	}, {
		name: "a write layer inside a carve-out is a root of its own; its carve-outs pin up to it, not past it",
		root: "/w", baseline: policy.Read,
		layers: []policy.Layer{layer("/w", policy.Write, mode), layer("/w/ro", policy.Read, dep),
			layer("/w/ro/rw", policy.Write, dep), layer("/w/ro/rw/a/b/c", policy.Deny, req)},
		want: summary{Roots: []string{"/w", "/w/ro/rw"}, CarveOuts: []string{"/w/ro", "/w/ro/rw/a/b/c"},
			Hidden: []string{"/w/ro/rw/a/b/c"}, Pins: []string{"/w/ro/rw/a", "/w/ro/rw/a/b"},
			PinRoots: []string{"/w/ro/rw", "/w/ro/rw"}},
	}, {
		name: "a layer granting what it had changes nothing",
		root: "/w", baseline: policy.Read,
		layers: []policy.Layer{layer("/w", policy.Write, mode), layer("/w/sub", policy.Write, dep), layer("/etc", policy.Read, dep)},
		want:   summary{Roots: []string{"/w"}},
	}, {
		name: "git writable: .git/hooks is a carve-out held by mount or path, not by name",
		root: "/w", baseline: policy.Read, gitOK: true,
		layers: []policy.Layer{layer("/w", policy.Write, mode), layer("/w/.git/hooks", policy.Read, prot)},
		want: summary{Roots: []string{"/w"}, CarveOuts: []string{"/w/.git/hooks"}, Pins: []string{"/w/.git"},
			PinRoots: []string{"/w"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &policy.Policy{Root: tt.root, Baseline: tt.baseline, Layers: tt.layers}
			p.Names.GitWritable = tt.gitOK
			policy.SortLayers(p.Layers)
			if diff := cmp.Diff(tt.want, summarize(New(p))); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// Before and its depth are what the earlier layers give, the baseline
// (depth -1) when none contains the path; Enclosing is the deepest other
// layer around it, whatever the order.
func TestStepBefore(t *testing.T) {
	p := &policy.Policy{Baseline: policy.Read, Layers: []policy.Layer{
		layer("/w", policy.Write, policy.FromMode), layer("/x/y", policy.Deny, policy.FromDeployment),
		layer("/w/a/b", policy.Read, policy.FromProtected)}}
	policy.SortLayers(p.Layers)
	got := map[string]string{}
	for _, s := range New(p).Steps {
		got[s.Path] = fmt.Sprintf("%v@%d in %q changes=%v", s.Before, s.BeforeDepth, s.Enclosing, s.Changes())
	}
	want := map[string]string{
		"/w":     `read@-1 in "" changes=true`,
		"/x/y":   `read@-1 in "" changes=true`,
		"/w/a/b": `write@1 in "/w" changes=true`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("steps (-want +got):\n%s", diff)
	}
}

// Within lists the carve-outs directly under a writable layer that are
// missing, in layer order; one nested in another layer is that layer's.
func TestWithin(t *testing.T) {
	p := &policy.Policy{Baseline: policy.Read, Layers: []policy.Layer{
		layer("/w", policy.Write, policy.FromMode), layer("/w/a", policy.Read, policy.FromDeployment),
		layer("/w/b", policy.Deny, policy.FromRequest), layer("/w/c", policy.Read, policy.FromProtected),
		layer("/w/a/d", policy.Deny, policy.FromRequest), layer("/w/e", policy.Write, policy.FromDeployment)}}
	policy.SortLayers(p.Layers)
	pl := New(p)
	asked := []string{}
	got, err := pl.Within("/w", func(s string) (bool, error) {
		asked = append(asked, s)
		return s != "/w/c", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/w/a", "/w/b"}, got); diff != "" {
		t.Fatalf("missing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/w/c", "/w/a", "/w/b"}, asked); diff != "" {
		t.Fatalf("asked about (-want +got):\n%s", diff)
	}
	if _, err := pl.Within("/w", func(string) (bool, error) { return false, fmt.Errorf("stat failed") }); err == nil {
		t.Fatal("a failed stat must fail the plan, not pass as present")
	}
}

// The no-mount split: explicit read-only and denied carve-outs apart from
// the generated ones, denies nested in a read-only carve-out, and the
// generated protected paths held by path or by name.
func TestUnmountedSplit(t *testing.T) {
	p := &policy.Policy{Root: "/home/u", Baseline: policy.Read, Layers: []policy.Layer{
		layer("/home/u", policy.Write, policy.FromMode),
		layer("/home/u/.config", policy.Read, policy.FromDeployment),
		layer("/home/u/.config/ringfence", policy.Deny, policy.FromDeployment),
		layer("/home/u/.env", policy.Deny, policy.FromRequest),
		layer("/home/u/.git/hooks", policy.Read, policy.FromProtected),
		layer("/home/u/secrets/key", policy.Read, policy.FromProtected),
		layer("/etc/shadow", policy.Deny, policy.FromDeployment)}}
	policy.SortLayers(p.Layers)
	pl := New(p)
	ro, denied := pl.Explicit()
	byPath, byName := pl.Protected()
	got := [][]string{ro, denied, pl.DeniedInside(denied), byPath, byName}
	want := [][]string{{"/home/u/.config"}, {"/home/u/.env"}, {"/home/u/.config/ringfence"},
		{"/home/u/secrets/key"}, {"/home/u/.git/hooks"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("read-only, denied, denied inside, by path, by name (-want +got):\n%s", diff)
	}
}

// Every access has its mount; anything else hides (fail closed).
func TestStepMount(t *testing.T) {
	for a, want := range map[policy.Access]Mount{policy.Write: BindRW, policy.Read: BindRO, policy.Deny: Mask, policy.Access(7): Mask} {
		if got := (Step{Layer: policy.Layer{Access: a}}).Mount(); got != want {
			t.Errorf("%v: mount %v, want %v", a, got, want)
		}
	}
}
