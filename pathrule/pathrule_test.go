package pathrule

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "a"},
		{"a/b", "a/b"},
		{"./out//a.csv", "out/a.csv"},
		{"a/../b", "b"},
		{"a/./b/", "a/b"},
		{"a/b/../../c", "c"},
		{"dir/..hidden", "dir/..hidden"},
		{"...", "..."},
		{"ab:c", "ab:c"},
		{"x~", "x~"},
		{"é/ü", "é/ü"},
	} {
		got, err := Clean(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Clean(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Reason
	}{
		{"", Empty},
		{".", Dot},
		{"./", Dot},
		{"a/..", Dot},
		{"./.", Dot},
		{"/etc/passwd", Absolute},
		{"/", Absolute},
		{"//x", Absolute},
		{"C:", Drive},
		{"c:/windows", Drive},
		{"a:b", Drive},
		{"~", Home},
		{"~/x", Home},
		{"~root/x", Home},
		{`a\b`, Backslash},
		{`a\..\..\x`, Backslash},
		{"a\x00b", NUL},
		{"./~", Home},
		{"a/../~x", Home},
		{"a/../C:x", Drive},
		{"..", Escape},
		{"../x", Escape},
		{"a/../../x", Escape},
		{"a/b/../../../x", Escape},
	} {
		_, err := Clean(tc.in)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("Clean(%q): err = %v, want refusal %s", tc.in, err, tc.want)
			continue
		}
		if pe.Reason != tc.want || pe.Path != tc.in || !errors.Is(err, ErrPathRefused) {
			t.Errorf("Clean(%q): got %+v, want reason %s", tc.in, pe, tc.want)
		}
	}
}

func TestErrorMessageShowsOnlyPathAndReason(t *testing.T) {
	_, err := Clean("../secret\x01")
	msg := err.Error()
	if !strings.Contains(msg, "escape") || strings.ContainsRune(msg, 1) {
		t.Fatalf("message %q: want reason and an escaped path", msg)
	}
	long := strings.Repeat("a/", 2000) + "../../" + strings.Repeat("../", 2001)
	_, err = Clean(long)
	if len(err.Error()) > 400 {
		t.Fatalf("message not bounded: %d bytes", len(err.Error()))
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"a", "../x", "a/../b", "./out//a.csv", `a\b`, "C:x", "~", "a/./../..", "\x00"} {
		f.Add(s)
	}
	root := "/ws/root"
	f.Fuzz(func(t *testing.T, in string) {
		out, err := Clean(in)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Path != in {
				t.Fatalf("Clean(%q): untyped error %v", in, err)
			}
			return
		}
		again, err := Clean(out)
		if err != nil || again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", in, out, again, err)
		}
		for _, seg := range strings.Split(out, "/") {
			if seg == ".." || seg == "." || seg == "" {
				t.Fatalf("Clean(%q) = %q has segment %q", in, out, seg)
			}
		}
		joined := filepath.Join(root, out)
		if !strings.HasPrefix(joined, root+"/") {
			t.Fatalf("Clean(%q) = %q joins outside the root: %q", in, out, joined)
		}
	})
}
