package probe

import (
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain dispatches the sandbox init: the linux backend's trial (a
// HostSources fact) re-executes this test binary as its init.
func TestMain(m *testing.M) { entry.Tests(m) }
