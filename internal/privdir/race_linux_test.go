package privdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/testenv"
)

// TestMakeRaceOtherUser: another user watches the shared parent (inotify)
// and, the moment a staging directory appears, plants a symlink at the
// final name it expects. Make must still succeed every time. (When the
// final name was the staging one's suffix, 195 of 300 Makes failed with
// ENOTDIR: any user could make ringfence runs fail on a shared /tmp.)
func TestMakeRaceOtherUser(t *testing.T) {
	testenv.NeedRoot(t)
	parent := filepath.Join(hostTemp(t), "shared")
	must(t, os.Mkdir(parent, 0o1777))
	must(t, os.Chmod(parent, 0o1777))
	// The other user runs a copy of this binary it can reach.
	bin, err := os.MkdirTemp("", "privdir-race-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	must(t, os.Chmod(bin, 0o755))
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(bin, "t"), self, 0o755))
	cmd := exec.Command(filepath.Join(bin, "t"), "-test.run=^TestHelperPlant$")
	cmd.Env = append(os.Environ(), "PRIVDIR_PLANT="+parent)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	buf := make([]byte, 16)
	if n, _ := out.Read(buf); !strings.HasPrefix(string(buf[:n]), "watching") {
		t.Fatalf("planter: %q", buf[:n])
	}
	var failed int
	var last error
	for range 300 {
		d, err := Make(parent, prefix)
		if err != nil {
			failed++
			last = err
			continue
		}
		d.Close()
	}
	planted, _ := filepath.Glob(filepath.Join(parent, prefix+"L*"))
	t.Logf("300 Makes: %d failed (last %v), %d names planted", failed, last, len(planted))
	if len(planted) == 0 {
		t.Fatal("the other user never planted a name: the race never ran, the test proves nothing")
	}
	if failed > 0 {
		t.Fatalf("another user made Make fail %d times in 300: %v", failed, last)
	}
}

// TestHelperPlant is the other user: on every new staging directory it
// makes a symlink at the final name Make would give it.
func TestHelperPlant(t *testing.T) {
	parent := os.Getenv("PRIVDIR_PLANT")
	if parent == "" {
		t.Skip("helper")
	}
	fd, err := unix.InotifyInit1(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.InotifyAddWatch(fd, parent, unix.IN_CREATE); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("watching\n")
	buf := make([]byte, 64<<10)
	stage := staging(prefix)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		n, err := unix.Read(fd, buf)
		if err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if strings.HasPrefix(name, stage) {
				_ = os.Symlink("/nonexistent", filepath.Join(parent, prefix+lockTag+strings.TrimPrefix(name, stage)))
			}
		}
	}
}

// hostTemp is a directory every user can reach (t.TempDir's parents are
// not), removed at the test's end.
func hostTemp(t *testing.T) string {
	d, err := os.MkdirTemp("", "privdir-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	must(t, os.Chmod(d, 0o755))
	return d
}
