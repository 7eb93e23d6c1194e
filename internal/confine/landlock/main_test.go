package landlock

import (
	"fmt"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/entry"
)

// helpers are what the test binary can be started as instead
// (RF_LL_HELPER), registered by the Linux tests.
var helpers = map[string]func(){}

// TestMain lets the test binary be the sandbox init and the helpers.
func TestMain(m *testing.M) {
	entry.Role("RF_LL_HELPER", func(name string) int {
		h := helpers[name]
		if h == nil {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
			return 100
		}
		h()
		return 0
	})
	entry.Tests(m, domaintest.Close)
}
