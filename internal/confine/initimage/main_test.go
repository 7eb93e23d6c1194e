package initimage

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// asOthers, set, makes this test binary choose its init as every other
// package's test binary does (TestTestBinariesRunWhatShips).
const asOthers = "RF_INITIMAGE_AS_OTHERS"

// TestMain makes this package's test binary use the carried init, as a
// program does, whatever the sources on disk.
func TestMain(m *testing.M) {
	if os.Getenv(asOthers) == "" {
		os.Setenv(Env, "embedded")
	}
	entry.Tests(m)
}
