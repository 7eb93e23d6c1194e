package viewplan

import (
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// FuzzContainsClean: the quick containment steps uses on cleaned paths
// answers as policy.Contains does.
func FuzzContainsClean(f *testing.F) {
	for _, s := range [][2]string{{"/", "/a"}, {"/a", "/a"}, {"/a", "/ab"}, {"/a", "/a/b"}, {"/a/b", "/a"}, {"a//", "/a/./b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, p string) {
		root, p = policy.Clean(root), policy.Clean(p)
		if got, want := containsClean(root, p), policy.Contains(root, p); got != want {
			t.Fatalf("containsClean(%q, %q) = %v, policy.Contains %v", root, p, got, want)
		}
	})
}
