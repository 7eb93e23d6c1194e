package policy

import (
	"path"
	"strings"
	"testing"
)

// cleanSlow and containsSlow are Clean and Contains as they were before
// the already-clean fast path: the reference the fast path must match.
func cleanSlow(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Clean("/" + p)
}

func containsSlow(root, candidate string) bool {
	root, candidate = cleanSlow(root), cleanSlow(candidate)
	if root == "/" || root == candidate {
		return true
	}
	return len(candidate) > len(root) && candidate[len(root)] == '/' && strings.HasPrefix(candidate, root)
}

func TestIsClean(t *testing.T) {
	for in, want := range map[string]bool{
		"/": true, "/a": true, "/a/b": true, "/a.b/..c/...": true, "/.x/x./a..": true,
		"": false, "a": false, "a/b": false, "//": false, "/a/": false, "/a//b": false,
		"/.": false, "/..": false, "/a/.": false, "/a/..": false, "/./a": false, "/../a": false,
		"/a/./b": false, "/a/../b": false, "///": false,
	} {
		if got := isClean(in); got != want {
			t.Errorf("isClean(%q) = %v, want %v", in, got, want)
		}
		// The fast path answers only where path.Clean leaves the input as it is.
		if isClean(in) && cleanSlow(in) != in {
			t.Errorf("isClean(%q) but path.Clean gives %q", in, cleanSlow(in))
		}
	}
}

// FuzzCleanFastPath: Clean, Contains and Depth with the already-clean fast
// path answer exactly as the path.Clean-every-time versions on any input,
// and isClean holds exactly for the paths Clean leaves unchanged.
func FuzzCleanFastPath(f *testing.F) {
	for _, s := range [][2]string{
		{"/", "/"}, {"/repo", "/repo/a"}, {"/repo", "/repo-secrets"}, {"/repo/", "/repo/a/"},
		{"/repo//a/./", "/repo/a/b"}, {"repo", "/repo/x"}, {"/repo", "/repo/../etc"},
		{"", "/."}, {"/..", "/a/.."}, {"/a/.b", "/a/.b/c"}, {"/a/..b", "/a"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, root, cand string) {
		for _, p := range []string{root, cand} {
			if got, want := Clean(p), cleanSlow(p); got != want {
				t.Fatalf("Clean(%q) = %q, want %q", p, got, want)
			}
			if isClean(p) != (cleanSlow(p) == p) {
				t.Fatalf("isClean(%q) = %v, but path.Clean gives %q", p, isClean(p), cleanSlow(p))
			}
		}
		if got, want := Contains(root, cand), containsSlow(root, cand); got != want {
			t.Fatalf("Contains(%q, %q) = %v, want %v", root, cand, got, want)
		}
	})
}

// BenchmarkContainsClean is the view plan's common case: both paths are
// already clean.
func BenchmarkContainsClean(b *testing.B) {
	for range b.N {
		Contains("/home/user/src/project", "/home/user/src/project/node_modules/x")
	}
}

func BenchmarkContainsCleanSlow(b *testing.B) {
	for range b.N {
		containsSlow("/home/user/src/project", "/home/user/src/project/node_modules/x")
	}
}
