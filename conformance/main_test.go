package conformance_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain lets the test binary serve as the sandbox init, the subreaper
// and the bwrap shim (a confining Local re-executes it as each), and as the
// fault tests' helper processes.
func TestMain(m *testing.M) {
	entry.Role(helperEnv, runHelper)
	entry.Tests(m)
}
