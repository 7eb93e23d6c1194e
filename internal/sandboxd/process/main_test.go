package process

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence"
)

// TestMain lets the test binary act as the sandbox's init (the linux
// backend re-executes the running binary).
func TestMain(m *testing.M) {
	if ringfence.MaybeInternal() {
		return
	}
	os.Exit(m.Run())
}
