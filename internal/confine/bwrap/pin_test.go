package bwrap_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

func TestPinDirs(t *testing.T) {
	ws := func(ls ...policy.Layer) *policy.Policy {
		return &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Baseline: policy.Read, Layers: layers(ls...)}
	}
	for _, tt := range []struct {
		name string
		pol  *policy.Policy
		want []string
	}{
		{"default git protection", ws(w("/w"), r("/w/.git/hooks"), r("/w/.git/config"), r("/w/.mcp.json")), []string{"/w/.git"}},
		{"carve-out at the top level needs no pin", ws(w("/w"), r("/w/.git"), d("/w/.env")), nil},
		{"outermost first, once each", ws(w("/w"), d("/w/a/b/.env"), r("/w/a/b/c/.git/config"), r("/w/a/x")),
			[]string{"/w/a", "/w/a/b", "/w/a/b/c", "/w/a/b/c/.git"}},
		{"inside a denied subtree nothing is writable", ws(w("/w"), d("/w/s"), r("/w/s/t/u")), nil},
		{"a nested root pins from itself", ws(w("/w"), d("/w/s"), w("/w/s/t"), r("/w/s/t/u/.git/config")), []string{"/w/s/t/u", "/w/s/t/u/.git"}},
		{"read-only mode has no root", &policy.Policy{Mode: policy.ReadOnly, Root: "/w", Baseline: policy.Read,
			Layers: layers(r("/w/.git/config"))}, nil},
		{"a write layer inside a root is no root", ws(w("/w"), w("/w/a"), r("/w/a/b/.git/config")), []string{"/w/a", "/w/a/b", "/w/a/b/.git"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, bwrap.PinDirs(tt.pol)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPinArgs: a pin is bound from its descriptor after the root's bind
// (it must be the root's own directory) and before the carve-outs beneath
// it (a later bind would cover them); only directories the caller opened
// are pinned, and only where the view is writable host content.
func TestPinArgs(t *testing.T) {
	pol := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo"), r("/home/u/repo/.git/config"), d("/home/u/repo/.git/secret"),
			r("/home/u/repo/src/a/.git/config"))}
	o := opts()
	o.Stat = fakeHost("/usr/", "/opt/ringfence", "/home/u/repo/.git/config", "/home/u/repo/.git/secret/", "/home/u/repo/src/a/.git/config")
	o.Pins = map[string]int{"/home/u/repo/.git": 7, "/home/u/repo/src/a": 9} // src itself was not opened (a link, say)
	args, err := bwrap.Args(&pol, confine.Request{Argv: []string{"true"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		switch args[i] {
		case "--bind", "--ro-bind":
			got = append(got, args[i:i+3])
			i += 2
		case "--bind-fd":
			got = append(got, args[i:i+3])
			i += 2
		case "--tmpfs":
			got = append(got, args[i:i+2])
			i++
		}
	}
	want := [][]string{{"--ro-bind", "/", "/"}, {"--tmpfs", "/tmp"}, {"--tmpfs", "/dev/shm"}, {"--bind", "/home/u/repo", "/home/u/repo"},
		{"--bind-fd", "7", "/home/u/repo/.git"}, {"--bind-fd", "9", "/home/u/repo/src/a"},
		{"--ro-bind", "/home/u/repo/.git/config", "/home/u/repo/.git/config"}, {"--tmpfs", "/home/u/repo/.git/secret"},
		{"--ro-bind", "/home/u/repo/src/a/.git/config", "/home/u/repo/src/a/.git/config"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mounts (-want +got):\n%s", diff)
	}

	// A read-only view needs no pin even if one is offered.
	ro := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo"), r("/home/u/repo/.git"), r("/home/u/repo/.git/config"))}
	o.Pins = map[string]int{"/home/u/repo/.git": 7}
	args, err = bwrap.Args(&ro, confine.Request{Argv: []string{"true"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		if a == "--bind-fd" {
			t.Fatalf("pinned a directory the view shows read-only: %q", args)
		}
	}
	o.Pins = map[string]int{"/home/u/repo/.git": 2}
	if _, err := bwrap.Args(&pol, confine.Request{Argv: []string{"true"}}, o); err == nil {
		t.Error("a pin on a standard descriptor was accepted")
	}
}

// TestExpandedEntriesByDescriptor: with OpenFDBase, an expanded root's
// entries are bound from descriptors the caller opens (Spec.Opens, in
// order), never by path; links are still recreated, not bound.
func TestExpandedEntriesByDescriptor(t *testing.T) {
	pol := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo"), r("/home/u/repo/.hg"))}
	o := opts()
	o.Stat, o.List, o.OpenFDBase = expandTree.Stat, expandTree.List, 10
	spec, err := bwrap.Plan(&pol, confine.Request{Argv: []string{"true"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []bwrap.Open{{Path: "/home/u/repo/.git", Dir: true}, {Path: "/home/u/repo/README"},
		{Path: "/home/u/repo/src", Dir: true}, {Path: "/home/u/repo/sub", Dir: true}}
	if diff := cmp.Diff(want, spec.Opens); diff != "" {
		t.Fatalf("opens (-want +got):\n%s", diff)
	}
	var fds []string
	for i, a := range spec.Args[:spec.Split] {
		switch {
		case a == "--bind" && strings.HasPrefix(spec.Args[i+2], "/home/u/repo/"):
			t.Errorf("an entry bound by path: %v", spec.Args[i:i+3])
		case a == "--bind-fd":
			fds = append(fds, spec.Args[i+1]+" "+spec.Args[i+2])
		}
	}
	if diff := cmp.Diff([]string{"10 /home/u/repo/.git", "11 /home/u/repo/README", "12 /home/u/repo/src", "13 /home/u/repo/sub"}, fds); diff != "" {
		t.Errorf("descriptor binds (-want +got):\n%s", diff)
	}
	if !strings.Contains(strings.Join(spec.Args, " "), "--symlink /elsewhere /home/u/repo/link") {
		t.Error("the link was not recreated")
	}
}
