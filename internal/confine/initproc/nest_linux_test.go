package initproc

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc/execstage"
	"github.com/ringfence/ringfence/internal/memfd"
	"github.com/ringfence/ringfence/internal/testenv"
)

// prepareNest readies the carried stage in a sealed, close-on-exec memfd
// holding exactly the image; the Go stage (the init's own image, with the
// Landlock rule that lets it execute itself) when asked to, and when no
// memfd can be made, where it used to fail every run.
func TestPrepareNestChoosesTheStage(t *testing.T) {
	if !nestable() {
		testenv.Need(t, "Landlock scopes (ABI 6)", errors.New("Landlock ABI below 6"))
	}
	if execstage.Image() == nil {
		testenv.Need(t, "a carried exec stage", errors.New("none on this platform"))
	}
	reset := func() {
		if stageFD >= 0 {
			unix.Close(stageFD)
		}
		stageFD, nestExe, stageMemfd = -1, "", memfd.Sealed
	}
	t.Cleanup(reset)
	goStage := func(t *testing.T, spec *Spec) {
		t.Helper()
		if stageFD != -1 || nestExe != SelfExe || !slices.Contains(spec.Landlock.Read, SelfExe) {
			t.Fatalf("not the Go stage: stage fd %d, exe %q, Landlock reads %v", stageFD, nestExe, spec.Landlock.Read)
		}
	}

	t.Run("carried", func(t *testing.T) {
		defer reset()
		var spec Spec
		if err := prepareNest(&spec); err != nil {
			t.Fatal(err)
		}
		if stageFD < 0 || nestExe != "" || len(spec.Landlock.Read) != 0 {
			t.Fatalf("not the carried stage: fd %d, exe %q, Landlock reads %v", stageFD, nestExe, spec.Landlock.Read)
		}
		seals, err := unix.FcntlInt(uintptr(stageFD), unix.F_GET_SEALS, 0)
		const want = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE
		if err != nil || seals&want != want {
			t.Fatalf("seals %#x (%v), want %#x", seals, err, want)
		}
		if fl, err := unix.FcntlInt(uintptr(stageFD), unix.F_GETFD, 0); err != nil || fl&unix.FD_CLOEXEC == 0 {
			t.Fatalf("the memfd is not close-on-exec: %#x %v", fl, err)
		}
		got := make([]byte, len(execstage.Image())+1)
		n, err := unix.Pread(stageFD, got, 0)
		if err != nil || !bytes.Equal(got[:n], execstage.Image()) {
			t.Fatalf("the memfd holds %d bytes, not the image (%v)", n, err)
		}
	})
	t.Run("asked for the Go stage", func(t *testing.T) {
		defer reset()
		spec := Spec{GoExecStage: true}
		if err := prepareNest(&spec); err != nil {
			t.Fatal(err)
		}
		goStage(t, &spec)
	})
	t.Run("no memfd", func(t *testing.T) {
		defer reset()
		stageMemfd = func(string, []byte) (int, error) { return -1, unix.EACCES }
		var spec Spec
		if err := prepareNest(&spec); err != nil {
			t.Fatalf("a host without memfds fails the run: %v", err)
		}
		goStage(t, &spec)
	})
}
