package bwrap_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain lets the test binary act as the exec shim where it is its own
// (initimage: the carried image is not shown fresh), as the ringfence
// binary does for `ringfence __exec`, and as a small attack helper that
// runs inside the sandbox (made readable there by showHelper).
func TestMain(m *testing.M) {
	entry.Register("__attack", attack)
	entry.Register("__parent", stand)
	entry.Register("__pid1", pid1Attack)
	entry.Tests(m, domaintest.Close)
}
