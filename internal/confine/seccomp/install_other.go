//go:build !linux

package seccomp

import (
	"context"
	"os"
)

// Install fails everywhere but Linux: there is no seccomp to load.
func Install(prog []SockFilter, flags ...Flag) (*os.File, error) {
	return nil, ErrNotSupported
}

// SuperviseUnix fails everywhere but Linux.
func SuperviseUnix(ctx context.Context, listener *os.File, allow func(path string) bool) error {
	return ErrNotSupported
}
