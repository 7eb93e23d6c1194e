package linux

import (
	"fmt"
	"os"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// attachControl gives a session init its control socket: a SEQPACKET
// socketpair (one message per request, descriptors passed with
// SCM_RIGHTS), the init's end at initproc.ControlFD, the supervisor's in
// cmd.Control (the caller closes it). Both ends are close-on-exec; the
// init marks its own so again before confining itself, so no command
// inherits it.
func attachControl(cmd *confine.Cmd, spec *initproc.Spec) error {
	if len(cmd.ExtraFiles) != initproc.ControlFD(spec)-3 {
		return fmt.Errorf("linux: session control descriptor out of place (%d inherited)", len(cmd.ExtraFiles))
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("linux: session control socket: %w", err)
	}
	sup, ini := os.NewFile(uintptr(fds[0]), "session-control"), os.NewFile(uintptr(fds[1]), "session-control-init")
	cmd.ExtraFiles = append(cmd.ExtraFiles, ini)
	cmd.Control = sup
	cleanup := cmd.Cleanup
	// The supervisor's end is the caller's to close (it may still be
	// reading the init's last reports when the run is cleaned up).
	cmd.Cleanup = func() {
		if cleanup != nil {
			cleanup()
		}
		ini.Close()
	}
	return nil
}
