//go:build !linux

package shim

import (
	"fmt"
	"os"
)

// Main is Linux-only: bwrap does not exist elsewhere.
func Main(args []string) int {
	fmt.Fprintln(os.Stderr, "ringfence __exec: only available on Linux")
	return 125
}
