package initimage

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain makes this package's test binary use the carried init, as a
// program does (a test binary otherwise runs itself as the init).
func TestMain(m *testing.M) {
	os.Setenv(Env, "embedded")
	entry.Tests(m)
}
