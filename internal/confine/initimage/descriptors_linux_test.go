package initimage_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/run"
)

// A child executes its own descriptor of the carried init, whatever
// numbers the supervisor's descriptors have. os/exec's child moves its
// error pipe to just above the highest descriptor it was given; when that
// one was 99, the move landed on the process's memfd at 100 and the init's
// exec failed with EACCES — about one run in 400 of a server running
// sixteen at once (seen under the conformance suite). Control: executing
// the process's memfd number with that same descriptor passed fails.
func TestInitStartsWhateverTheDescriptorNumbers(t *testing.T) {
	path, err := initimage.Path()
	if err != nil || path == initproc.SelfExe {
		t.Fatalf("the carried init is not in use: %q %v", path, err)
	}
	memfd, err := strconv.Atoi(strings.TrimPrefix(path, "/proc/self/fd/"))
	if err != nil {
		t.Fatalf("path %q: %v", path, err)
	}
	below := func(t *testing.T) *os.File {
		t.Helper()
		if _, err := unix.FcntlInt(uintptr(memfd-1), unix.F_GETFD, 0); !errors.Is(err, unix.EBADF) {
			t.Fatalf("descriptor %d is in use here", memfd-1)
		}
		null, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer null.Close()
		if err := unix.Dup3(int(null.Fd()), memfd-1, unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		return os.NewFile(uintptr(memfd-1), "just below the memfd")
	}

	t.Run("control", func(t *testing.T) {
		f := below(t)
		defer f.Close()
		c := exec.Command(path, initproc.Arg)
		c.ExtraFiles = []*os.File{f}
		err := c.Start()
		if err == nil {
			_ = c.Process.Kill()
			_ = c.Wait()
			t.Fatal("control: the process's memfd number was still the init at exec")
		}
		if !errors.Is(err, syscall.EACCES) {
			t.Fatalf("control: %v, want EACCES", err)
		}
	})

	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			c := confineInWorkspace(t, b, []string{"/bin/true"}, []string{"PATH=/usr/bin:/bin"})
			c.ExtraFiles = append(c.ExtraFiles, below(t)) // run closes it once started
			r, err := run.Run(context.Background(), c, run.Options{Timeout: time.Minute})
			if err != nil {
				t.Fatalf("the init did not start: %v", err)
			}
			if r.ExitCode == nil || *r.ExitCode != 0 {
				t.Fatalf("exit %v, status %+v, stderr %q", r.ExitCode, r.Status, r.Stderr)
			}
		})
	}
}
