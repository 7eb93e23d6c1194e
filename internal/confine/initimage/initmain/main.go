// Command initmain is the sandbox init alone: the small program the
// ringfence binary carries (internal/confine/initimage) and executes as
// the init of every run, instead of re-executing the whole ringfence
// binary. It links only initproc, the subreaper (internal/reaper) and
// bubblewrap's exec shim (internal/confine/bwrap/shim) — no CLI, MCP SDK,
// gRPC, classifier tables or schemas — so each run starts a fraction of
// the code.
//
// It is built by `go generate ./internal/confine/initimage` (see gen),
// never installed on its own, and answers only three entry points: the
// init's (`__confine`), the reaper's (`__reap`), which internal/run starts
// from the same image for a process-group run, and the exec shim's
// (`__exec`), which the bwrap backend has bubblewrap start from it.
package main

import (
	"fmt"
	"os"

	_ "github.com/ringfence/ringfence/internal/confine/bwrap/shim"
	_ "github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/entry"
	_ "github.com/ringfence/ringfence/internal/reaper"
)

func main() {
	entry.Dispatch()
	fmt.Fprintln(os.Stderr, "ringfence-init: this is ringfence's sandbox init, subreaper and exec shim; it is started only by ringfence")
	os.Exit(2)
}
