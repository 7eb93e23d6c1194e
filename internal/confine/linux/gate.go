package linux

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// gate starts the init gated (initproc.GateArg): its gate is the last
// inherited descriptor, so it must be added after every descriptor of a
// fixed number (the handoff, the session control). Stage writes the spec
// and leaves the gate shut, so the init builds its confinement while the
// supervisor places it under its limits, and returns what opens it; Setup,
// for callers that place nothing (the probe, tests), writes the spec and
// opens the gate at once.
func gate(cmd *confine.Cmd) error {
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("linux: init gate: %w", err)
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	cmd.Args = append(cmd.Args[:len(cmd.Args):len(cmd.Args)], initproc.GateArg(fd))
	var once sync.Once
	var openErr error
	open := func() error {
		once.Do(func() { openErr = openGate(w) })
		return openErr
	}
	setup := cmd.Setup
	cmd.Stage = func(pid int) (func() error, error) {
		if setup != nil {
			if err := setup(pid); err != nil {
				return nil, err
			}
		}
		return open, nil
	}
	cmd.Setup = func(pid int) error {
		if _, err := cmd.Stage(pid); err != nil {
			return err
		}
		return open()
	}
	cleanup := cmd.Cleanup
	cmd.Cleanup = func() {
		if cleanup != nil {
			cleanup()
		}
		r.Close()
		w.Close() // an init never admitted reads end of file and starts nothing
	}
	return nil
}

// openGate admits the init. An init that is gone (it failed its set-up and
// said so on the status channel) has no reader left: EPIPE, and nothing
// to admit — it can no longer start anything.
func openGate(w *os.File) error {
	_, err := w.Write([]byte{initproc.GateOpen})
	if errors.Is(err, syscall.EPIPE) {
		err = nil
	}
	return errors.Join(err, w.Close())
}
