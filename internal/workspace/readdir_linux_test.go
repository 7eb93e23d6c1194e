package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadDirMatchesOS: the getdents listing holds every name os.ReadDir
// does, with the same types, over several buffers' worth of entries and
// every file type a workspace can hold.
func TestReadDirMatchesOS(t *testing.T) {
	dir := t.TempDir()
	for i := range 3000 {
		name := fmt.Sprintf("file-with-a-longish-name-%04d.txt", i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("sub", filepath.Join(dir, "link"))
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	got, err := sysReadDir(fd)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadDir(dir)
	var g, w []string
	for _, e := range got {
		g = append(g, e.Name()+" "+e.Type().String())
	}
	for _, e := range want {
		w = append(w, e.Name()+" "+e.Type().String())
	}
	slices.Sort(g)
	if len(w) != 3003 || !slices.Equal(g, w) {
		t.Fatalf("%d entries, os.ReadDir %d", len(g), len(w))
	}
}
