package homestate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStateRoot(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "XDG_STATE_HOME" {
				return v
			}
			return ""
		}
	}
	if got, err := StateRoot(env("/x/state"), "/home/u"); err != nil || got != "/x/state/ringfence" {
		t.Errorf("XDG: %q %v", got, err)
	}
	if got, err := StateRoot(env(""), "/home/u"); err != nil || got != "/home/u/.local/state/ringfence" {
		t.Errorf("default: %q %v", got, err)
	}
	for _, c := range [][2]string{{"rel/state", "/home/u"}, {"", ""}, {"", "rel"}} {
		if _, err := StateRoot(env(c[0]), c[1]); err == nil {
			t.Errorf("%q %q accepted", c[0], c[1])
		}
	}
}

func TestLayerForIsPerWorkspace(t *testing.T) {
	a, b := LayerFor("/s", "/w/a"), LayerFor("/s", "/w/b")
	if a.Dir == b.Dir || LayerFor("/s", "/w/a/").Dir != a.Dir || !strings.HasPrefix(a.Dir, "/s/home/") {
		t.Fatalf("layers %v %v", a, b)
	}
}

func TestCheckShare(t *testing.T) {
	home := "/home/u"
	for in, want := range map[string]string{
		"~/.cache/go-build":   "/home/u/.cache/go-build",
		"/home/u/.cache/pip/": "/home/u/.cache/pip",
		"~/.npm":              "/home/u/.npm",
		"~/go/pkg/mod":        "/home/u/go/pkg/mod",
	} {
		if got, err := CheckShare(home, in); err != nil || got != want {
			t.Errorf("CheckShare(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"~/.cargo/bin", "~/.cargo/bin/x", "~/.cargo", "~/.local/bin", "~/.local", "~/bin",
		"~/.bashrc", "~/.gitconfig", "~/.cache", "~", "/home/u", "/etc", "/home/u/../v/x", "rel/x", "~/.ssh/x",
		"~/.config/git/hooks", "~/.nvm/versions", "~/.pyenv/shims"} {
		if got, err := CheckShare(home, in); err == nil {
			t.Errorf("CheckShare(%q) accepted as %q", in, got)
		}
	}
}

func FuzzCheckShare(f *testing.F) {
	for _, s := range []string{"~/.cache/x", "~/.cargo/bin", "/home/u/.local/bin/../x", "~/a/../../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := CheckShare("/home/u", in)
		if err != nil {
			return
		}
		if !strings.HasPrefix(got, "/home/u/") || filepath.Clean(got) != got {
			t.Fatalf("%q accepted as %q: not a clean path inside home", in, got)
		}
		rel := strings.TrimPrefix(got, "/home/u/")
		for _, r := range sharedRefused {
			if rel == r || strings.HasPrefix(rel, r+"/") || strings.HasPrefix(r, rel+"/") {
				t.Fatalf("%q accepted as %q, which touches ~/%s", in, got, r)
			}
		}
	})
}

func TestPrepareAndClear(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	l, err := Prepare(state, "/w/a")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{l.Upper, l.Work, l.Cache} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v", d, fi, err)
		}
	}
	// What overlayfs leaves: a work directory of mode 000 with content.
	ww := filepath.Join(l.Work, "work", "inner")
	if err := os.MkdirAll(ww, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(l.Work, "work"), 0); err != nil {
		t.Fatal(err)
	}
	other, _ := Prepare(state, "/w/b")
	if err := Clear(state, "/w/a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(l.Dir); !os.IsNotExist(err) {
		t.Fatalf("layer survived: %v", err)
	}
	if _, err := os.Stat(other.Dir); err != nil {
		t.Fatalf("another workspace's layer went too: %v", err)
	}
	if err := Clear(state, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(state, "home")); !os.IsNotExist(err) {
		t.Fatalf("clear all left %v", err)
	}
	if err := Clear(state, "/never"); err != nil {
		t.Fatalf("clearing a missing layer: %v", err)
	}
}

// A state directory others can write, or a link, is refused: whoever
// controls it controls what later runs see in their home.
func TestPrepareRefusesUnsafeState(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(open, "/w"); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("world-writable state accepted: %v", err)
	}
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Prepare(link, "/w"); err == nil {
		t.Fatal("a state directory that is a link was accepted")
	}
	if os.Getuid() == 0 {
		foreign := filepath.Join(base, "foreign")
		if err := os.Mkdir(foreign, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := Prepare(foreign, "/w"); err == nil || !strings.Contains(err.Error(), "owned by") {
			t.Fatalf("a foreign state directory was accepted: %v", err)
		}
	}
}

// A layer written by a confined command may hold links to host files and
// directories; clearing it removes the links, never what they point to,
// and never changes a target's mode. The control shows that a chmod by
// path (what a path-based walk does) would follow the link.
func TestClearDoesNotFollowLinks(t *testing.T) {
	base := t.TempDir()
	victimDir := filepath.Join(base, "victim")
	victim := filepath.Join(victimDir, "file")
	if err := os.MkdirAll(victimDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(base, "state")
	l, err := Prepare(state, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(l.Upper, "f")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victimDir, filepath.Join(l.Upper, "d")); err != nil {
		t.Fatal(err)
	}
	if err := Clear(state, "/w"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(victim)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the link's target was touched: %v %v", fi, err)
	}
	if di, err := os.Stat(victimDir); err != nil || di.Mode().Perm() != 0o755 {
		t.Fatalf("the linked directory was touched: %v %v", di, err)
	}
	// Control: chmod by path follows the link.
	link := filepath.Join(base, "link")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(link, 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o600 {
		t.Fatal("control: chmod through a link did not reach the target")
	}
}
