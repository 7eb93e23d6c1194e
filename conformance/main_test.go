package conformance_test

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence"
)

// TestMain lets the test binary serve as the sandbox init, the subreaper
// and the bwrap shim (a confining Local re-executes it as each), and as the
// fault tests' helper processes.
func TestMain(m *testing.M) {
	if ringfence.MaybeInternal() {
		return
	}
	if role := os.Getenv(helperEnv); role != "" {
		os.Exit(runHelper(role))
	}
	os.Exit(m.Run())
}
