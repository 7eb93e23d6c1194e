package linux

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

func TestMain(m *testing.M) {
	if initproc.IsInit() {
		initproc.Main()
	}
	os.Exit(m.Run())
}
