//go:build !linux

package linux

import (
	"errors"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// attachControl: sessions need the linux init (never reached off Linux,
// where the backend is unavailable).
func attachControl(*confine.Cmd, *initproc.Spec) error {
	return errors.New("linux: sessions are available on Linux only")
}
