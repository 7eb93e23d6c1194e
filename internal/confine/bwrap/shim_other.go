//go:build !linux

package bwrap

import (
	"fmt"
	"os"
)

// Shim is Linux-only: bwrap does not exist elsewhere.
func Shim(args []string) int {
	fmt.Fprintln(os.Stderr, "ringfence __exec: only available on Linux")
	return 125
}
