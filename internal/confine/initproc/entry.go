package initproc

import "github.com/ringfence/ringfence/internal/entry"

// The sandbox init is one of the binary's entry points (internal/entry):
// every binary that links this package and dispatches first thing can be
// re-executed as it. Main never returns; the code is for the table's type.
func init() {
	entry.Register(Arg, func([]string) int {
		Main()
		return ExitSetup
	})
}
