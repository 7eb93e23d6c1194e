package run

import (
	"errors"
	"io/fs"
)

// StartError says the runner itself could not be started (or set up); the
// caller reports it as a runner failure. It carries no command text.
type StartError struct{ Err error }

// Error names the operation and errno only: os/exec's message holds the
// program path, which for a plain Cmd is command text.
func (e *StartError) Error() string {
	var pe *fs.PathError
	if errors.As(e.Err, &pe) {
		return "starting the runner: " + pe.Op + ": " + pe.Err.Error()
	}
	return "starting the runner: " + e.Err.Error()
}

// Unwrap exposes the cause (errors.Is(err, fs.ErrNotExist) etc.).
func (e *StartError) Unwrap() error { return e.Err }
