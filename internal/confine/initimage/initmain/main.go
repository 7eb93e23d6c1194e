// Command initmain is the sandbox init alone: the small program the
// ringfence binary carries (internal/confine/initimage) and executes as
// the init of every run, instead of re-executing the whole ringfence
// binary. It links only initproc and the subreaper (internal/reaper) — no
// CLI, MCP SDK, gRPC, classifier tables or schemas — so each run starts a
// fraction of the code.
//
// It is built by `go generate ./internal/confine/initimage` (see gen),
// never installed on its own, and answers only two entry points: the
// init's (`__confine`) and the reaper's (`__reap`), which internal/run
// starts from the same image for a process-group run.
package main

import (
	"fmt"
	"os"

	_ "github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/entry"
	_ "github.com/ringfence/ringfence/internal/reaper"
)

func main() {
	entry.Dispatch()
	fmt.Fprintln(os.Stderr, "ringfence-init: this is ringfence's sandbox init and subreaper; it is started only by ringfence")
	os.Exit(2)
}
