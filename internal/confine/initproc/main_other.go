//go:build !linux

package initproc

import (
	"os"

	"github.com/ringfence/ringfence/internal/status"
)

// Main is the sandbox init. Off Linux there is nothing to confine with: it
// reports the failure on the status channel and exits.
func Main() {
	st := os.NewFile(StatusFD, "status")
	_ = status.Write(st, status.Event{Kind: status.Failed, Reason: status.SetupFailed,
		Stage: "platform", Detail: "the ringfence init runs on Linux only"})
	os.Exit(ExitSetup)
}
