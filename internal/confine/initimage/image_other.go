//go:build !linux

package initimage

import (
	"errors"
	"os"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// Path is initproc.SelfExe: only Linux runs an init.
func Path() (string, error) { return initproc.SelfExe, nil }

// Identity is never known here: the image is the running binary.
func Identity() (dev, ino uint64, ok bool) { return 0, 0, false }

// Describe says where the init is executed from, for doctor.
func Describe() string { return "the ringfence binary" }

// imageFile is never called here: Path is always initproc.SelfExe.
func imageFile() (*os.File, error) {
	return nil, errors.New("initimage: no carried init on this platform")
}
