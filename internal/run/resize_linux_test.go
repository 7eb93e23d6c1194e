//go:build linux

package run

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Options.Resize: a size waiting at the start is the terminal's from the
// start, a later one resizes it and the command's foreground group is told
// (SIGWINCH); Options.OnStart gets the root's pid while it runs. Control:
// the first size is seen, so a second that were ignored would fail.
func TestResizeChannelAndOnStart(t *testing.T) {
	bothWays(t, func(t *testing.T, reaper bool) {
		rs := make(chan WindowSize, 1)
		rs <- WindowSize{Rows: 30, Cols: 100}
		var out syncBuffer
		pids := make(chan int, 1)
		done := make(chan *Result, 1)
		go func() {
			r, err := Run(context.Background(), shCmd(`trap 'echo "size $(stty size)"' WINCH; echo "size $(stty size)"; echo ready; while :; do sleep 0.05; done`), Options{
				Terminal: &Terminal{Stdin: true, Stdout: true, Stderr: true}, Resize: rs,
				Stdout: &out, Timeout: 20 * time.Second, Reaper: reaper,
				OnStart: func(pid int) { pids <- pid },
			})
			if err != nil {
				t.Error(err)
			}
			done <- r
		}()
		var root int
		select {
		case root = <-pids:
		case <-time.After(10 * time.Second):
			t.Fatal("OnStart was not called")
		}
		if _, err := os.Stat("/proc/" + strconv.Itoa(root)); err != nil {
			t.Fatalf("OnStart's pid %d is not running: %v", root, err)
		}
		out.waitFor(t, "size 30 100")
		out.waitFor(t, "ready")
		rs <- WindowSize{Rows: 50, Cols: 132}
		out.waitFor(t, "size 50 132")
		// The root (the command, or the reaper above it) ends the tree.
		_ = syscall.Kill(root, syscall.SIGKILL)
		r := <-done
		if r == nil || strings.Contains(out.String(), "size 24 80") {
			t.Fatalf("result %+v, out %q", r, out.String())
		}
	})
}
