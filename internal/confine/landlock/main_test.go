package landlock

import (
	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// helpers are what the test binary can be started as instead
// (RF_LL_HELPER), registered by the Linux tests.
var helpers = map[string]func(){}

// TestMain lets the test binary be the sandbox init and the helpers.
func TestMain(m *testing.M) {
	if initproc.IsInit() {
		initproc.Main()
	}
	if h := helpers[os.Getenv("RF_LL_HELPER")]; h != nil {
		h()
	}
	code := m.Run()
	domaintest.Close()
	os.Exit(code)
}
