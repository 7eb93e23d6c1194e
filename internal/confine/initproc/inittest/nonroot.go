//go:build linux

package inittest

import (
	"os"
	"testing"
)

const nobody = 65534

// RerunAsNonRoot runs the tests matching pattern again as an unprivileged
// user (uid 65534), from a copy of the running test binary it can execute,
// under RINGFENCE_REQUIRE_ALL=1. Attacks marked Root skip there.
func RerunAsNonRoot(t *testing.T, pattern string) {
	if os.Geteuid() != 0 {
		t.Skip("already not root")
	}
	Rerun(t, RerunOptions{Pattern: pattern, UID: nobody, Env: []string{"PATH=/usr/bin:/bin"}})
}
