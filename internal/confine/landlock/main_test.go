package landlock

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// TestMain lets the test binary be the sandbox init and, for the
// teardown tests, a supervisor the test SIGKILLs (RF_LL_HELPER).
func TestMain(m *testing.M) {
	if initproc.IsInit() {
		initproc.Main()
	}
	if os.Getenv("RF_LL_HELPER") == "supervise" {
		superviseTree(os.Getenv("RF_LL_DIR"), os.Getenv("RF_LL_SHARED") == "1")
	}
	os.Exit(m.Run())
}
