package linux

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

func TestMain(m *testing.M) {
	if initproc.IsInit() {
		initproc.Main()
	}
	code := m.Run()
	domaintest.Close()
	os.Exit(code)
}
