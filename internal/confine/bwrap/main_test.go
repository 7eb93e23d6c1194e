package bwrap_test

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
)

// TestMain lets the test binary act as the exec shim, as the ringfence
// binary does for `ringfence __exec`, and as a small attack helper that
// runs inside the sandbox (the binary is visible there at its host path).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case bwrap.ShimArg:
			os.Exit(bwrap.Shim(os.Args[2:]))
		case "__attack":
			os.Exit(attack(os.Args[2:]))
		case "__parent":
			os.Exit(stand(os.Args[2:]))
		case "__pid1":
			os.Exit(pid1Attack(os.Args[2:]))
		}
	}
	code := m.Run()
	domaintest.Close()
	os.Exit(code)
}
