package policy

import (
	"slices"
	"testing"
)

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		root, p string
		want    bool
	}{
		{"/repo", "/repo", true}, {"/repo", "/repo/a", true}, {"/repo/", "/repo/a/", true},
		{"/repo", "/repo-secrets", false}, {"/repo", "/repos", false}, {"/repo", "/re", false},
		{"/", "/anything", true}, {"/", "/", true}, {"/repo/a", "/repo", false},
		{"/repo", "/repo/../etc", false}, {"/repo//a/./", "/repo/a/b", true}, {"repo", "/repo/x", true},
	} {
		if got := Contains(tc.root, tc.p); got != tc.want {
			t.Errorf("Contains(%q, %q) = %v", tc.root, tc.p, got)
		}
		if got := within(Clean(tc.root), Clean(tc.p)); got != tc.want {
			t.Errorf("within(%q, %q) = %v", tc.root, tc.p, got)
		}
	}
}

func TestCleanAndDepth(t *testing.T) {
	for in, want := range map[string]string{"/a/b/": "/a/b", "a": "/a", "/../x": "/x", "//a//b": "/a/b", "": "/", "/": "/"} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]int{"/": 0, "/a": 1, "/a/b/": 2, "/a/../b/c": 2} {
		if got := Depth(in); got != want {
			t.Errorf("Depth(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestLayerAlgebra(t *testing.T) {
	p := &Policy{Baseline: Read, Layers: []Layer{
		{Path: "/repo/a/b", Access: Write, Origin: FromDeployment},
		{Path: "/repo/a", Access: Deny, Origin: FromDeployment},
		{Path: "/repo", Access: Write, Origin: FromMode},
		{Path: "/repo", Access: Read, Origin: FromRequest},
	}}
	SortLayers(p.Layers)
	wantOrder := []Layer{
		{Path: "/repo", Access: Write, Origin: FromMode}, {Path: "/repo", Access: Read, Origin: FromRequest},
		{Path: "/repo/a", Access: Deny, Origin: FromDeployment}, {Path: "/repo/a/b", Access: Write, Origin: FromDeployment},
	}
	if !slices.Equal(p.Layers, wantOrder) {
		t.Fatalf("sorted %v", p.Layers)
	}
	wantAccess(t, p, map[string]Access{"/repo": Read, "/repo/a/x": Deny, "/repo/a/b/c": Write, "/etc": Read})
	rs := p.WritableRoots()
	if !slices.Equal(rs.Roots, []string{"/repo", "/repo/a/b"}) || !slices.Equal(rs.Denied, []string{"/repo"}) {
		t.Errorf("roots %+v", rs)
	}
	if !slices.Equal(p.UnreadablePaths(), []string{"/repo/a"}) {
		t.Errorf("unreadable %v", p.UnreadablePaths())
	}
}
