package policy

import (
	"path"
	"testing"
)

// rt16 (issue 16 red team): the Clean fast path must answer exactly as
// path.Clean on every input, not only on the ones a fuzzer happens to
// reach. Every string of up to 7 bytes over an alphabet holding each byte
// the fast path looks at ('/', '.') and the ones it must treat as plain
// ('a', NUL, a non-UTF-8 byte, '\\') is checked against the reference:
// Clean, isClean, Contains against a fixed set of roots, and Depth.
func TestRTCleanFastPathExhaustive(t *testing.T) {
	alphabet := []byte{'/', '.', 'a', 0, 0xff, '\\'}
	roots := []string{"/", "/a", "/a/", "/.", "/a/..", "//a", "a", "", "/.a", "/a."}
	var n, fast int
	buf := make([]byte, 0, 7)
	var walk func()
	walk = func() {
		p := string(buf)
		n++
		want := cleanSlow(p)
		if got := Clean(p); got != want {
			t.Fatalf("Clean(%q) = %q, path.Clean gives %q", p, got, want)
		}
		if isClean(p) {
			fast++
			if want != p {
				t.Fatalf("fast path taken for %q, path.Clean gives %q", p, want)
			}
		} else if p != "" && p[0] == '/' && path.Clean(p) == p {
			t.Fatalf("isClean(%q) false though path.Clean leaves it", p)
		}
		for _, r := range roots {
			if got, want := Contains(r, p), containsSlow(r, p); got != want {
				t.Fatalf("Contains(%q, %q) = %v, want %v", r, p, got, want)
			}
			if got, want := Contains(p, r), containsSlow(p, r); got != want {
				t.Fatalf("Contains(%q, %q) = %v, want %v", p, r, got, want)
			}
		}
		if len(buf) == cap(buf) {
			return
		}
		for _, c := range alphabet {
			buf = append(buf, c)
			walk()
			buf = buf[:len(buf)-1]
		}
	}
	walk()
	// Control: the walk reached inputs on both sides of the fast path.
	if fast == 0 || fast == n {
		t.Fatalf("fast path taken on %d of %d inputs: the walk did not exercise both paths", fast, n)
	}
	t.Logf("%d inputs, %d on the fast path", n, fast)
}
