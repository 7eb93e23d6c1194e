package initimage

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/memfd"
	"golang.org/x/sys/unix"
)

func needBlob(t *testing.T) {
	t.Helper()
	if blob == "" {
		t.Fatal("no init is carried for linux/amd64: run go generate ./internal/confine/initimage")
	}
}

// The memfd holds exactly the blob, sealed so nothing — not a writable
// descriptor reopened through /proc, not a writable mapping, not a
// resize — can change it, close-on-exec, and above the descriptors
// os/exec rewrites in a child.
func TestMemfdIsSealed(t *testing.T) {
	needBlob(t)
	fd, how, err := sealed(blob)
	if err != nil {
		t.Fatal(err)
	}
	if how != fromExe {
		t.Errorf("the blob was %s, not %s", how, fromExe)
	}
	if fd < minFD {
		t.Fatalf("descriptor %d below %d", fd, minFD)
	}
	path := "/proc/self/fd/" + strconv.Itoa(fd)
	defer unix.Close(fd)
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Fatalf("not close-on-exec: %d %v", flags, err)
	}
	if got, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0); err != nil || got&memfd.Seals != memfd.Seals {
		t.Fatalf("seals %#x %v, want %#x", got, err, memfd.Seals)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != blob {
		t.Fatalf("contents differ from the blob (%d bytes, %v)", len(data), err)
	}
	// Every way to change it fails.
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("reopen for writing: %v", err) // allowed; the seal refuses the writes
	}
	defer w.Close()
	if _, err := w.WriteAt([]byte("x"), 0); !errors.Is(err, unix.EPERM) {
		t.Errorf("write through a reopened descriptor: %v, want EPERM", err)
	}
	if err := w.Truncate(1); !errors.Is(err, unix.EPERM) {
		t.Errorf("shrink: %v, want EPERM", err)
	}
	if err := w.Truncate(int64(len(blob)) + 4096); !errors.Is(err, unix.EPERM) {
		t.Errorf("grow: %v, want EPERM", err)
	}
	if _, err := unix.Mmap(int(w.Fd()), 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED); !errors.Is(err, unix.EPERM) {
		t.Errorf("writable shared mapping: %v, want EPERM", err)
	}
	if _, err := unix.FcntlInt(w.Fd(), unix.F_ADD_SEALS, 0); !errors.Is(err, unix.EPERM) {
		t.Errorf("changing the seals: %v, want EPERM", err)
	}
	// Control: an unsealed memfd takes the same write.
	ctl, err := unix.MemfdCreate("control", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ctl)
	if _, err := unix.Pwrite(ctl, []byte("x"), 0); err != nil {
		t.Fatalf("control write: %v", err)
	}
}

// The carried init is the init and nothing else: started without its
// entry point it refuses, and as the init without a spec it fails the
// set-up (initproc.ExitSetup), as the init in the ringfence binary does.
func TestCarriedInitAnswersOnlyTheInit(t *testing.T) {
	needBlob(t)
	path, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	if path == initproc.SelfExe {
		t.Fatalf("Path is the test binary under %s=embedded: %s", Env, Describe())
	}
	out, err := exec.Command(path).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "started only by ringfence") {
		t.Fatalf("bare start: %v %q", err, out)
	}
	err = exec.Command(path, initproc.Arg).Run()
	if !errors.As(err, &exit) || exit.ExitCode() != initproc.ExitSetup {
		t.Fatalf("init without a spec: %v, want exit %d", err, initproc.ExitSetup)
	}
	if d := Describe(); !strings.HasPrefix(d, "embedded (") {
		t.Fatalf("Describe: %q", d)
	}
}

// A descriptor of the memfd closed elsewhere in the process and reused
// for another file makes Path fail, not name that file.
func TestPathRefusesAReusedDescriptor(t *testing.T) {
	needBlob(t)
	if _, err := Path(); err != nil {
		t.Fatal(err)
	}
	saved, err := unix.FcntlInt(uintptr(image.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := unix.Dup3(saved, image.fd, unix.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		unix.Close(saved)
		if _, err := Path(); err != nil {
			t.Fatalf("restored: %v", err)
		}
	}()
	other, err := os.Open("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := unix.Dup3(int(other.Fd()), image.fd, unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if path, err := Path(); err == nil {
		t.Fatalf("Path = %q with the descriptor holding /bin/sh", path)
	}
}
