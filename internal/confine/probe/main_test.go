package probe

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// TestMain dispatches the sandbox init: the linux backend's trial (a
// HostSources fact) re-executes this test binary as its init.
func TestMain(m *testing.M) {
	if initproc.IsInit() {
		initproc.Main()
	}
	os.Exit(m.Run())
}
