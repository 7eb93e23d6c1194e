//go:build !linux

package seccomp

import (
	"context"
	"os"
)

// Supervise fails everywhere but Linux.
func Supervise(ctx context.Context, listener *os.File, r Rules) error {
	return ErrNotSupported
}
