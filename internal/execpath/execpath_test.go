package execpath

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPathOf(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "def"},
		{[]string{"HOME=/h"}, "def"},
		{[]string{"PATH=/a"}, "/a"},
		{[]string{"PATH=/a", "X=1", "PATH=/b"}, "/b"},
		{[]string{"PATH="}, ""},
		{[]string{"XPATH=/x"}, "def"},
	} {
		if got := PathOf(tc.env, "def"); got != tc.want {
			t.Errorf("PathOf(%q) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestDirs(t *testing.T) {
	for path, want := range map[string]string{
		"/usr/bin:/bin":    "/usr/bin|/bin",
		"":                 "",
		":":                "",
		"/usr/bin:":        "/usr/bin",
		"::/bin":           "/bin",
		".:/bin":           "/bin",
		"./bin:bin:/x/./y": "/x/./y",
		"../..:/a":         "/a",
	} {
		if got := strings.Join(Dirs(path), "|"); got != want {
			t.Errorf("Dirs(%q) = %q, want %q", path, got, want)
		}
	}
}

// tree makes a directory with an executable "tool", a non-executable
// "plain" and a directory "sub".
func tree(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	must(t, os.WriteFile(filepath.Join(d, "tool"), []byte("#!/bin/sh\necho tool\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(d, "plain"), []byte("x"), 0o644))
	must(t, os.Mkdir(filepath.Join(d, "sub"), 0o755))
	return d
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	a, b := tree(t), tree(t)
	must(t, os.Chmod(filepath.Join(b, "plain"), 0o755))
	for _, tc := range []struct {
		name, path, want string
		err              error
	}{
		{"tool", a + ":" + b, a + "/tool", nil},
		{"tool", "/nonexistent:" + b, b + "/tool", nil},
		{"plain", a + ":" + b, b + "/plain", nil}, // a's is not executable: keep looking
		{"plain", a, "", unix.EACCES},
		{"sub", a, "", unix.ENOENT}, // a directory is never a program
		{"missing", a, "", unix.ENOENT},
		{"", a, "", unix.ENOENT},
		{"tool", "", "", unix.ENOENT},
		{"./tool", "", "./tool", nil}, // a slash: used as given
		{"x/y", a, "x/y", nil},
		{"..", a + "/sub", "", unix.ENOENT},
	} {
		got, err := Find(tc.name, tc.path)
		if got != tc.want || !errors.Is(err, tc.err) && (err != nil || tc.err != nil) {
			t.Errorf("Find(%q, %q) = %q, %v; want %q, %v", tc.name, tc.path, got, err, tc.want, tc.err)
		}
	}
}

// TestFindRefusesDotEntries is the attack: the model plants "ls" in the
// command's working directory (the workspace) and PATH has a dot-relative
// entry before, or instead of, the real directory. A shell runs the plant
// (the control: the attack is real); Find never returns it.
func TestFindRefusesDotEntries(t *testing.T) {
	real, err := exec.LookPath("ls")
	if err != nil {
		t.Fatalf("no ls on this host: %v", err)
	}
	real, _ = filepath.EvalSymlinks(real)
	ws := t.TempDir()
	must(t, os.WriteFile(filepath.Join(ws, "ls"), []byte("#!/bin/sh\necho PLANTED\n"), 0o755))
	must(t, os.Mkdir(filepath.Join(ws, "bin"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "bin", "ls"), []byte("#!/bin/sh\necho PLANTED\n"), 0o755))
	t.Chdir(ws)
	realDir := filepath.Dir(real)
	for _, path := range []string{".:" + realDir, ":" + realDir, realDir[1:] + "x::" + realDir, "bin:" + realDir, "./bin:" + realDir} {
		ctl := exec.Command("/bin/sh", "-c", "ls")
		ctl.Env, ctl.Dir = []string{"PATH=" + path}, ws
		out, _ := ctl.Output()
		if !strings.Contains(string(out), "PLANTED") {
			t.Fatalf("control PATH=%q: the shell did not run the plant (%q): the attack is not set up", path, out)
		}
		got, err := Find("ls", path)
		if err != nil || !filepath.IsAbs(got) || strings.HasPrefix(got, ws) {
			t.Fatalf("Find(ls, %q) = %q, %v: want the real ls", path, got, err)
		}
		run := exec.Command(got)
		run.Dir, run.Env = ws, []string{"PATH=" + path}
		if out, _ := run.Output(); strings.Contains(string(out), "PLANTED") {
			t.Fatalf("PATH=%q: the planted ls ran", path)
		}
	}
	// With only dot entries nothing is found: no fallback to the plant.
	for _, path := range []string{".", "", ":", "bin", "./bin"} {
		if got, err := Find("ls", path); !errors.Is(err, unix.ENOENT) {
			t.Errorf("Find(ls, %q) = %q, %v; want ENOENT", path, got, err)
		}
	}
}

func FuzzFind(f *testing.F) {
	for _, s := range []string{".:/bin", "::", "/usr/bin:bin", "/bin/../bin:x"} {
		f.Add("sh", s)
	}
	f.Fuzz(func(t *testing.T, name, path string) {
		got, err := Find(name, path)
		if err != nil {
			return
		}
		if strings.Contains(name, "/") {
			if got != name {
				t.Fatalf("Find(%q) = %q: a name with a slash is used as given", name, got)
			}
			return
		}
		if !filepath.IsAbs(got) {
			t.Fatalf("Find(%q, %q) = %q: a relative result", name, path, got)
		}
	})
}
