package ringfence

import (
	"os"
	"testing"
)

// TestMain lets this test binary act as the sandbox init, the subreaper
// and bwrap's exec shim: a confining Local re-executes the running binary.
func TestMain(m *testing.M) {
	if MaybeInternal() {
		return
	}
	os.Exit(m.Run())
}
