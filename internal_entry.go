package ringfence

import (
	// The packages whose entry points a confining Local re-executes this
	// binary as; each registers itself in the entry table.
	_ "github.com/ringfence/ringfence/internal/confine/bwrap/shim"
	_ "github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/entry"
	_ "github.com/ringfence/ringfence/internal/reaper"
)

// MaybeInternal runs the hidden entry point this binary was re-executed as,
// if any, and then exits; otherwise it returns false at once. A confining
// Local re-executes the running binary as the sandbox init (`__confine`),
// the subreaper (`__reap`) or bubblewrap's exec shim (`__exec`) — only
// where no init image is carried (off linux/amd64, or where no memfd can
// be made: internal/confine/initimage) — so every
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
// result is a bool so the call reads as a guard. It is a thin call into
// the one entry table (internal/entry), which also records that this
// binary dispatches, so it may be re-executed as the reaper.
func MaybeInternal() bool { return entry.Dispatch() }
