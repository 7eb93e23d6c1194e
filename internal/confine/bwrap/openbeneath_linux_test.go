package bwrap

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenBeneath: the opener behind pins and expanded entries follows no
// link, on the way or at the end, and checks the kind it was told.
func TestOpenBeneath(t *testing.T) {
	root := t.TempDir()
	out := t.TempDir()
	for _, d := range []string{"/d/e"} {
		if err := os.MkdirAll(root+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(root+"/d/f", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out+"/victim", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{out, "/ldir"}, {out + "/victim", "/lfile"}, {"e", "/d/rel"}} {
		if err := os.Symlink(l[0], root+l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		rel string
		dir bool
		ok  bool
	}{
		{"d", true, true}, {"d/e", true, true}, {"d/f", false, true},
		{"ldir", true, false}, {"ldir/victim", false, false}, {"lfile", false, false}, {"d/rel", true, false},
		{"d/f", true, false}, {"d", false, false}, {"missing", true, false}, {"d/../d", true, false}, {"", true, false},
	} {
		fd, err := openBeneath(root, tt.rel, tt.dir)
		if err == nil {
			_ = unix.Close(fd)
		}
		if (err == nil) != tt.ok {
			t.Errorf("openBeneath(%q, dir=%v) = %v, want ok=%v", tt.rel, tt.dir, err, tt.ok)
		}
	}
	if _, err := openBeneath(root, "lfile", false); !errors.Is(err, unix.ELOOP) {
		t.Errorf("a link to a file: %v, want ELOOP", err)
	}
}
