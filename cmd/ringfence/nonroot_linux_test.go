package main

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The terminal, the exit codes and the gentle stop hold for a person
// running ringfence without root, on every backend, as for root.
func TestRunCLINonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestRunOnTerminal|TestRunOnTerminalCtrlZ|TestCommandNeverHoldsUserTerminal|TestTerminalRestoredOnSignal|TestExitNotExecutableNotFound|TestTimeoutRunsTrap|TestStoppedBySignal)$")
}
