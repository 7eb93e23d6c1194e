package memfd

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func sealedFile(t *testing.T, data []byte) int {
	t.Helper()
	fd, err := Sealed("ringfence-memfd-test", data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// A sealed memfd holds exactly the data, is close-on-exec, and refuses
// every change: through its own descriptor, through one opened again for
// writing (what another holder would have), by a shared writable mapping,
// by a size change, and by lifting the seals. The control is an unsealed
// memfd, which takes the same write.
func TestSealedRefusesEveryChange(t *testing.T) {
	data := bytes.Repeat([]byte("ringfence"), 1000)
	fd := sealedFile(t, data)
	proc := "/proc/self/fd/" + strconv.Itoa(fd)
	if got, err := os.ReadFile(proc); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("contents: %d bytes, %v; want the %d written", len(got), err, len(data))
	}
	if got, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0); err != nil || got&Seals != Seals {
		t.Fatalf("seals %#x (%v), want %#x", got, err, Seals)
	}
	if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("descriptor flags %#x (%v): not close-on-exec", flags, err)
	}
	if link, err := os.Readlink(proc); err != nil || !strings.Contains(link, "memfd:ringfence-memfd-test") {
		t.Errorf("/proc names it %q (%v), want the memfd's name", link, err)
	}

	control, err := Create("ringfence-memfd-control")
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(control)
	if _, err := unix.Pwrite(control, []byte("x"), 0); err != nil {
		t.Fatalf("control: an unsealed memfd refused a write: %v", err)
	}

	if _, err := unix.Pwrite(fd, []byte("x"), 0); !errors.Is(err, unix.EPERM) {
		t.Errorf("write: %v, want EPERM", err)
	}
	if w, err := os.OpenFile(proc, os.O_WRONLY, 0); err != nil {
		if !errors.Is(err, unix.EPERM) {
			t.Errorf("opening it again for writing: %v, want success or EPERM", err)
		}
	} else {
		_, err = w.WriteAt([]byte("x"), 0)
		w.Close()
		if !errors.Is(err, unix.EPERM) {
			t.Errorf("write through a descriptor opened again: %v, want EPERM", err)
		}
	}
	if _, err := unix.Mmap(fd, 0, len(data), unix.PROT_WRITE, unix.MAP_SHARED); !errors.Is(err, unix.EPERM) {
		t.Errorf("shared writable mapping: %v, want EPERM", err)
	}
	for _, size := range []int64{0, int64(len(data)) + 4096} {
		if err := unix.Ftruncate(fd, size); !errors.Is(err, unix.EPERM) {
			t.Errorf("ftruncate to %d: %v, want EPERM", size, err)
		}
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_FUTURE_WRITE); !errors.Is(err, unix.EPERM) {
		t.Errorf("adding a seal after F_SEAL_SEAL: %v, want EPERM", err)
	}
	if got, _ := os.ReadFile(proc); !bytes.Equal(got, data) {
		t.Error("the contents changed")
	}
}

// A program in a sealed memfd runs from its descriptor, as the init and
// the exec stage are run: /bin/false's exit status 1 (not an exec error)
// shows the bytes ran.
func TestSealedExecutes(t *testing.T) {
	prog, err := exec.LookPath("false")
	if err != nil {
		t.Fatal(err)
	}
	image, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	fd := sealedFile(t, image)
	cmd := exec.Command("/proc/self/fd/" + strconv.Itoa(fd))
	cmd.Args[0] = "false" // a multi-call binary (busybox) picks its applet by argv[0]
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("running %s from the memfd: %v, want exit status 1", prog, err)
	}
}

// An empty image is a valid memfd (sealed, empty), not an error.
func TestSealedEmpty(t *testing.T) {
	fd := sealedFile(t, nil)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Size != 0 {
		t.Fatalf("size %d (%v), want 0", st.Size, err)
	}
}
