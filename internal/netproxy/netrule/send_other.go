//go:build !linux

package netrule

import (
	"errors"
	"os"
)

// Send is unavailable off Linux: the domains network needs a network
// namespace.
func Send(sock *os.File, h Handoff, fd int) error {
	return errors.New("the domains network needs Linux")
}
