package ringfence

import (
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain lets this test binary act as the sandbox init, the subreaper
// and bwrap's exec shim: a confining Local re-executes the running binary.
// (The tests that use the dial client moved with the pipeline to
// internal/sandbox, whose TestMain serves it.)
func TestMain(m *testing.M) {
	entry.Tests(m)
}
