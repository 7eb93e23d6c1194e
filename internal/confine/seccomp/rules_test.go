package seccomp

import (
	"strings"
	"testing"
)

func TestProtect(t *testing.T) {
	p := Protect{"/ws/.bashrc", "/ws/.claude", "/ws/.git/hooks"}
	cases := []struct {
		path             string
		covers, encloses bool
	}{
		{"/ws/.bashrc", true, false},
		{"/ws/.bashrc/x", true, false},
		{"/ws/.bashrcx", false, false},
		{"/ws/.claude", true, false},
		{"/ws/.claude/settings.json", true, false},
		{"/ws/.git/hooks", true, false},
		{"/ws/.git/hooks/pre-commit", true, false},
		{"/ws/.git/hooksx", false, false},
		{"/ws/.git", false, true},
		{"/ws", false, true},
		{"/", false, true},
		{"/ws/.git/config", false, false},
		{"/ws/src/.bashrc", false, false},
		{"/other/.bashrc", false, false},
		{"/ws/.git/../.bashrc", true, false}, // cleaned, though Supervise never asks so
	}
	for _, c := range cases {
		if got := p.Covers(c.path); got != c.covers {
			t.Errorf("Covers(%q) = %v, want %v", c.path, got, c.covers)
		}
		if got := p.Encloses(c.path); got != c.encloses {
			t.Errorf("Encloses(%q) = %v, want %v", c.path, got, c.encloses)
		}
	}
	if Protect(nil).Covers("/ws/.bashrc") || Protect(nil).Encloses("/") {
		t.Error("an empty set protects something")
	}
	r := p.Rules(nil)
	if r.Protected == nil || r.Encloses == nil || r.AllowUnix != nil {
		t.Errorf("Rules: %+v", r)
	}
}

// FuzzProtect checks that no path is both protected and an ancestor of a
// protected path, and that every protected path covers what is beneath.
func FuzzProtect(f *testing.F) {
	f.Add("/ws/.git/hooks", "/ws/.git")
	f.Add("/ws/.bashrc", "/ws/.bashrc/x")
	f.Add("/", "/a")
	f.Fuzz(func(t *testing.T, prot, path string) {
		if !strings.HasPrefix(prot, "/") || !strings.HasPrefix(path, "/") {
			return
		}
		p := Protect{prot}
		if p.Covers(path) && p.Encloses(path) {
			t.Errorf("%q both covered and enclosing under %q", path, prot)
		}
		if p.Covers(path) && !p.Covers(path+"/x") {
			t.Errorf("%q covered but %q beneath it is not", path, path+"/x")
		}
		if p.Encloses(path+"/x") && !p.Encloses(path) {
			t.Errorf("%q encloses but its parent %q does not", path+"/x", path)
		}
	})
}
