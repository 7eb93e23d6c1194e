package modelpath

import (
	"errors"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

func TestClean(t *testing.T) {
	long := strings.Repeat("a", MaxShown+10)
	for _, c := range []struct {
		mount     Mount
		in, want  string
		reason    string // "" accepted
		scopeWant string // Scope's answer when it differs from Clean's refusal
		shown     string // the refused path shown, when not in
	}{
		{"", "src/a.go", "src/a.go", "", "", ""},
		{"", "/workspace/src/a.go", "src/a.go", "", "", ""},
		{"", "/workspace//src/./a.go", "src/a.go", "", "", ""},
		{"/srv/ws", "/srv/ws/a", "a", "", "", ""},
		{"/srv/ws", "/workspace/a", "", "absolute", "", ""},
		{"", "/workspacex/a", "", "absolute", "", ""},
		{"", "/workspace", "", "dot", "-", ""},
		{"", "/workspace/", "", "dot", "-", ""},
		{"", ".", "", "dot", "-", ""},
		{"", "", "", "empty", "-", ""},
		{"", "/workspace/..", "", "escape", "", ""},
		{"", "/workspace/../etc", "", "escape", "", ""},
		{"", "a/../../b", "", "escape", "", ""},
		{"", "/etc/passwd", "", "absolute", "", ""},
		{"", "~/x", "", "home", "", ""},
		{"", "C:x", "", "drive", "", ""},
		{"", `a\b`, "", "backslash", "", ""},
		{"", "a\x00b", "", "nul", "", ""},
		{"", "/" + long, "", "absolute", "", "/" + long[:MaxShown-1] + "…"},
	} {
		got, err := c.mount.Clean(c.in)
		if c.reason == "" {
			if err != nil || got != c.want {
				t.Errorf("%q.Clean(%q) = %q, %v; want %q", c.mount, c.in, got, err, c.want)
			}
			continue
		}
		o, ok := outcome.Of(err)
		shown := c.in
		if c.shown != "" {
			shown = c.shown
		}
		if !ok || o.Kind != outcome.PathRejected || o.Reason != c.reason || o.Path != shown || got != "" {
			t.Errorf("%q.Clean(%q) = %q, %+v; want path-rejected %s showing %q", c.mount, c.in, got, o, c.reason, shown)
		}
		if !errors.Is(err, pathrule.ErrPathRefused) {
			t.Errorf("%q.Clean(%q): the refusal does not wrap pathrule.ErrPathRefused", c.mount, c.in)
		}
		s, serr := c.mount.Scope(c.in)
		if c.scopeWant == "-" {
			if s != "" || serr != nil {
				t.Errorf("%q.Scope(%q) = %q, %v; want the workspace itself", c.mount, c.in, s, serr)
			}
		} else if serr == nil {
			t.Errorf("%q.Scope(%q) accepted a path Clean refuses (%s)", c.mount, c.in, c.reason)
		}
	}
}

func TestModel(t *testing.T) {
	if got := Mount("").Model(""); got != outcome.DefaultMountPath {
		t.Errorf("Model(\"\") = %q", got)
	}
	if got := Mount("/srv/ws").Model("a/b"); got != "/srv/ws/a/b" {
		t.Errorf("Model(a/b) = %q", got)
	}
	if got := Refused("x", errors.New("other")); !strings.Contains(got.Error(), "(invalid)") {
		t.Errorf("a refusal that is not pathrule's: %v", got)
	}
}

// FuzzClean: whatever a model writes, an accepted path is pathrule-clean
// (so never absolute, never climbing) and Model of it lies under the mount
// path; a refusal is always path-rejected, bounded, and wraps the
// sentinel.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"a", "/workspace/a", "/workspace/../x", "/workspace", "/workspacex", "../", "~", "C:", "a\\b", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		m := Mount("/workspace")
		rel, err := m.Clean(p)
		if err != nil {
			o, ok := outcome.Of(err)
			if !ok || o.Kind != outcome.PathRejected || len(o.Path) > MaxShown+len("…") || !errors.Is(err, pathrule.ErrPathRefused) {
				t.Fatalf("Clean(%q): refusal %+v %v", p, o, err)
			}
			return
		}
		if again, err := pathrule.Clean(rel); err != nil || again != rel {
			t.Fatalf("Clean(%q) = %q, which pathrule does not keep as is", p, rel)
		}
		if mp := m.Model(rel); !strings.HasPrefix(mp, "/workspace/") {
			t.Fatalf("Clean(%q) = %q, shown as %q", p, rel, mp)
		}
	})
}
