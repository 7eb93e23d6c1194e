package coderun

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence"
)

// TestMain dispatches the re-executed entry points (the sandbox init, the
// subreaper) a confining Local starts.
func TestMain(m *testing.M) {
	if ringfence.MaybeInternal() {
		return
	}
	os.Exit(m.Run())
}
