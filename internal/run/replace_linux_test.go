//go:build linux

package run

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv/replacebin"
)

// replacedHelper runs as a copy of the test binary (replacebin): it
// renames a script over its own binary, then runs a command under the
// reaper. As the control it executes the path os.Executable names
// instead, to show the replacement is there to run.
func replacedHelper() {
	if err := replacebin.Plant(); err != nil {
		helperFail(err)
	}
	replacebin.Control(os.Executable, reapArg)
	r, err := Run(context.Background(), shCmd("echo reaped-ok"), Options{Timeout: time.Minute, Reaper: true})
	if err != nil {
		helperFail(err)
	}
	fmt.Printf("stdout %q\n", r.Stdout)
	os.Exit(0)
}

func helperFail(err error) {
	fmt.Fprintln(os.Stderr, "helper:", err)
	os.Exit(3)
}

// A binary replaced on disk after the supervisor started cannot run as the
// reaper: it is executed from the running image (/proc/self/exe). The
// control executes the path the binary was started from, and the
// replacement runs.
func TestReplacedBinaryCannotBecomeReaper(t *testing.T) {
	replacebin.Test(t, []string{"RF_RUN_HELPER=replaced"}, `stdout "reaped-ok\n"`)
}
