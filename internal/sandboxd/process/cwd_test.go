package process

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCwdModelPath(t *testing.T) {
	const root, mount = "/srv/ws", "/workspace"
	cases := []struct {
		in, want string
		err      error
	}{
		{"", "", nil},
		{".", "", nil},
		{"./", "", nil},
		{"src", "src", nil},
		{"./src//lib/", "src/lib", nil},
		{"a/../b", "b", nil},
		{"/srv/ws", "", nil},
		{"/srv/ws/src", "src", nil},
		{"/workspace", "", nil},
		{"/workspace/src/../lib", "lib", nil},
		{"..", "", errCwdOutside},
		{"../ws", "", errCwdOutside},
		{"src/../../etc", "", errCwdOutside},
		{"/etc", "", errCwdOutside},
		{"/", "", errCwdOutside},
		{"/srv/ws-evil", "", errCwdOutside},
		{"/workspace-evil/x", "", errCwdOutside},
		{"/srv/ws/../other", "", errCwdOutside},
		{"/workspace/../etc", "", errCwdOutside},
		{"a\x00b", "", errCwdOutside},
		{`a\..\..\etc`, "", errCwdOutside},
		{"~", "", errCwdOutside},
	}
	for _, c := range cases {
		got, err := cwdModelPath(c.in, root, mount)
		if !errors.Is(err, c.err) || (err == nil && got != c.want) {
			t.Errorf("cwdModelPath(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
	// A root of "/" never makes an absolute path "beneath" it.
	if _, err := cwdModelPath("/etc", "/", ""); !errors.Is(err, errCwdOutside) {
		t.Errorf("root /: /etc gave %v", err)
	}
}

func FuzzCwdModelPath(f *testing.F) {
	for _, s := range []string{"", ".", "src", "../x", "/workspace/a", "/srv/ws/../x", "a/./../..", "/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := cwdModelPath(in, "/srv/ws", "/workspace")
		if err != nil {
			return
		}
		// Whatever is accepted stays beneath the root once joined.
		j := filepath.Join("/srv/ws", got)
		if j != "/srv/ws" && !strings.HasPrefix(j, "/srv/ws/") {
			t.Fatalf("%q accepted as %q, which joins to %q", in, got, j)
		}
		if strings.Contains(got, "..") && strings.Contains("/"+got+"/", "/../") {
			t.Fatalf("%q accepted with a ..: %q", in, got)
		}
	})
}

func TestCheckCwd(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "src/lib"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "file"), nil, 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink("src", filepath.Join(root, "in")))
	must(t, os.Symlink("../../..", filepath.Join(root, "src/up")))
	for _, c := range []struct {
		rel string
		err error
	}{
		{"", nil}, {"src", nil}, {"src/lib", nil}, {"in", nil}, {"in/lib", nil},
		{"out", errCwdOutside}, {"src/up", errCwdOutside}, {"missing", errCwdMissing},
		{"file", errCwdNotDir},
	} {
		if err := checkCwd(root, c.rel); !errors.Is(err, c.err) {
			t.Errorf("checkCwd(%q) = %v, want %v", c.rel, err, c.err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
