//go:build !linux

package conformance_test

import (
	"fmt"
	"os"
)

const helperEnv = "RF_CONFORMANCE_HELPER"

// runHelper: the fault helpers need Linux.
func runHelper(role string) int {
	fmt.Fprintf(os.Stderr, "helper %q: linux only\n", role)
	return 1
}
