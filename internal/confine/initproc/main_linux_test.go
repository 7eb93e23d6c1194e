package initproc

import (
	"os"
	"os/exec"
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain lets the test binary be the sandbox init (and, for the
// controls, a plain Go parent: RF_INIT_HELPER=plain).
func TestMain(m *testing.M) {
	entry.Role("RF_INIT_HELPER", func(string) int { plainParent(); return 0 })
	entry.Tests(m)
}

// plainParent is a Go program that runs its arguments as a child and
// waits, with the runtime's default signal handling: what the init was
// before it became deaf to signals it does not use.
func plainParent() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
