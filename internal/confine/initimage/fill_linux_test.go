package initimage

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/memfd"
)

func newMemfd(t *testing.T) int {
	t.Helper()
	fd, err := memfd.Create("ringfence-init-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

func contents(t *testing.T, fd int) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The carried init is copied by the kernel from the executable's file,
// not through this process's memory: the fast path is taken (fill would
// hide its failure behind the slower write) and copies exactly the blob.
func TestInitIsCopiedFromTheExecutable(t *testing.T) {
	needBlob(t)
	fd := newMemfd(t)
	if err := copyFromExe(fd, blob); err != nil {
		t.Fatalf("copy from the executable: %v", err)
	}
	if contents(t, fd) != blob {
		t.Fatal("the copy differs from the blob")
	}
}

// Bytes that are not in the executable's file (here, on the heap) are
// refused by the fast path, and fill writes them from memory instead,
// over whatever a failed copy left.
func TestFillWritesWhatIsNotInTheExecutable(t *testing.T) {
	data := strings.Repeat("not in the executable ", 10000)
	fd := newMemfd(t)
	if err := copyFromExe(fd, data); err == nil {
		t.Fatal("bytes on the heap were copied from the executable")
	}
	if _, err := unix.Write(fd, []byte("left by a failed copy, longer than nothing")); err != nil {
		t.Fatal(err)
	}
	how, err := fill(fd, data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(how, fromMemory+" (") {
		t.Errorf("fill says it was %q", how)
	}
	if contents(t, fd) != data {
		t.Fatal("fill's fallback did not write exactly the data")
	}
}

// fileOffset understands only an ELF executable and an address inside one
// of its loaded segments.
func TestFileOffsetRefusesWhatItDoesNotUnderstand(t *testing.T) {
	notELF := newMemfd(t)
	if _, err := unix.Write(notELF, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	if _, err := fileOffset(notELF, 0x400000, 1); err == nil {
		t.Error("a file of zeros was read as an executable")
	}
	exe, err := unix.Open("/proc/self/exe", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(exe)
	if _, err := fileOffset(exe, 1<<62, 1); err == nil {
		t.Error("an address outside every segment was given an offset")
	}
}
