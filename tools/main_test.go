package tools

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/run"
)

// TestMain dispatches the re-executed entry points (the sandbox init, the
// subreaper) a Local starts, as every binary that runs commands must.
// run.Dispatch is called too while ringfence.MaybeInternal does not yet
// record the dispatch itself; it is harmless once it does.
func TestMain(m *testing.M) {
	if ringfence.MaybeInternal() {
		return
	}
	run.Dispatch()
	os.Exit(m.Run())
}
