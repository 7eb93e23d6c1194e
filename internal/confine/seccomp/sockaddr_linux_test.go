package seccomp

import (
	"strings"
	"testing"
)

func TestParseSockaddr(t *testing.T) {
	cases := []struct {
		in   []byte
		kind addrKind
		path string
	}{
		{nil, addrOther, ""},
		{[]byte{1}, addrOther, ""},
		{[]byte{2, 0, 1, 2, 3, 4}, addrOther, ""}, // AF_INET
		{[]byte{1, 0}, addrUnnamed, ""},
		{[]byte{1, 0, 0, 'x'}, addrAbstract, ""},
		{unixSockaddr("/run/docker.sock"), addrPath, "/run/docker.sock"},
		{[]byte("\x01\x00rel/s.sock"), addrPath, "rel/s.sock"}, // no NUL: ends at the length
		{[]byte("\x01\x00/a\x00/ignored"), addrPath, "/a"},     // ends at the first NUL
		{append([]byte{1, 0}, strings.Repeat("a", 200)...), addrPath, strings.Repeat("a", 200)},
	}
	for _, c := range cases {
		kind, path := parseSockaddr(c.in)
		if kind != c.kind || path != c.path {
			t.Errorf("parseSockaddr(%q) = %v %q, want %v %q", c.in, kind, path, c.kind, c.path)
		}
	}
}

// FuzzParseSockaddr: a path never holds a NUL, and re-encoding it parses
// back to itself.
func FuzzParseSockaddr(f *testing.F) {
	f.Add([]byte("\x01\x00/run/docker.sock\x00"))
	f.Add([]byte("\x01\x00\x00abstract"))
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, path := parseSockaddr(b)
		if kind != addrPath {
			return
		}
		if path == "" || strings.IndexByte(path, 0) >= 0 {
			t.Fatalf("bad path %q from %q", path, b)
		}
		if k2, p2 := parseSockaddr(unixSockaddr(path)); k2 != addrPath || p2 != path {
			t.Fatalf("round trip of %q gave %v %q", path, k2, p2)
		}
	})
}
