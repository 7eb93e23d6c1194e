package ringfence

import (
	"os"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/run"
)

// MaybeInternal runs the hidden entry point this binary was re-executed as,
// if any, and then exits; otherwise it returns false at once. A confining
// Local re-executes the running binary as the sandbox init (`__confine`),
// the subreaper (`__reap`) or bubblewrap's exec shim (`__exec`), so every
// binary that creates one — the ringfence CLI, a program embedding the
// library, a test binary — must call it first thing in main (or TestMain):
//
//	func main() {
//		if ringfence.MaybeInternal() {
//			return
//		}
//		…
//	}
//
// It never returns true: each entry point exits the process itself. The
// result is a bool so the call reads as a guard.
func MaybeInternal() bool {
	// Dispatch runs the subreaper when this is one, and otherwise records
	// that re-executing this binary as the reaper is safe.
	run.Dispatch()
	if len(os.Args) < 2 {
		return false
	}
	switch os.Args[1] {
	case initproc.Arg:
		initproc.Main()
	case bwrap.ShimArg:
		os.Exit(bwrap.Shim(os.Args[2:]))
	default:
		return false
	}
	os.Exit(125) // unreachable: the entry points above never return
	return true
}
