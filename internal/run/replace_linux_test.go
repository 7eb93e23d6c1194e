//go:build linux

package run

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/reaper"
	"github.com/ringfence/ringfence/internal/testenv/replacebin"
)

// replacedHelper runs as a copy of the test binary (replacebin): it
// renames a script over its own binary, then runs a command under the
// reaper, which says what its parent (the reaper) was executed from and
// which descriptors it got. As the control it executes the path
// os.Executable names instead, to show the replacement is there to run.
func replacedHelper() {
	if err := replacebin.Plant(); err != nil {
		helperFail(err)
	}
	replacebin.Control(os.Executable, reaper.Arg)
	cmd := shCmd(`echo reaped-ok; readlink /proc/$PPID/exe; ls /proc/self/fd | tr '\n' ' '`)
	r, err := Run(context.Background(), cmd, Options{Timeout: time.Minute, Reaper: true})
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
// reaper: it is executed from the running image (/proc/self/exe; a test
// binary uses itself, see initimage). The control executes the path the
// binary was started from, and the replacement runs. The command gets
// only 0, 1, 2 (ls adds its own 3): not the reaper's status channel or
// gate.
func TestReplacedBinaryCannotBecomeReaper(t *testing.T) {
	replacebin.Test(t, []string{"RF_RUN_HELPER=replaced", initimage.Env + "=self"}, reaperSays(`/run.test (deleted)\n`))
}

// The same attack where the reaper is the carried image, as for the
// ringfence binary: the reaper runs from the sealed memfd (its /proc exe
// says so), whatever was renamed over the binary, and the command does
// not inherit the image's descriptor either.
func TestReplacedBinaryCannotBecomeEmbeddedReaper(t *testing.T) {
	replacebin.Test(t, []string{"RF_RUN_HELPER=replaced", initimage.Env + "=embedded"},
		reaperSays(`stdout "reaped-ok\n/memfd:ringfence-init (deleted)\n`))
}

// reaperSays is what the helper prints: what the reaper was executed from
// (exe, readable as root only: the reaper is not dumpable, so the
// command of another user than root reads nothing there) and the
// command's descriptors.
func reaperSays(exe string) string {
	if os.Geteuid() != 0 {
		return `stdout "reaped-ok\n0 1 2 3 "`
	}
	return exe + `0 1 2 3 "`
}

// Both, as an unprivileged user (agents also run as root: the tests above).
func TestReplacedBinaryCannotBecomeReaperNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestReplacedBinaryCannotBecome(Embedded)?Reaper$")
}
