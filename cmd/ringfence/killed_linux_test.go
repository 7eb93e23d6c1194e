package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledRunLeavesNoDirectory: `ringfence run` SIGKILLed mid-run cannot
// clean up, so its private temp dir (and, on the linux backend, its home
// overlay's work directory) stays until the next start sweeps it, since no
// live process holds its lock. Control: while the run lives, its
// directories exist and their locks are held (a sweep leaves them).
func TestKilledRunLeavesNoDirectory(t *testing.T) {
	for _, b := range []string{"landlock", "linux"} {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			ws := workspace(t)
			// Each subtest's own state directory: its run-* work dirs are
			// this run's alone.
			state := t.TempDir()
			t.Setenv("XDG_STATE_HOME", state)
			// The landlock backend shows the host path of the temp dir.
			c := cliProcess(t, ws, "run", "--backend", b, "--", "sh", "-c", `echo "$TMPDIR"; exec sleep 60`)
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("no TMPDIR line: %v", err)
			}
			var mine []string
			if b == "landlock" {
				tmp := strings.TrimSpace(line)
				if !strings.HasPrefix(tmp, "/tmp/ringfence-tmp-") {
					t.Fatalf("TMPDIR %q", tmp)
				}
				mine = append(mine, tmp)
			} else {
				mine, _ = filepath.Glob(filepath.Join(state, "ringfence", "home", "*", "work", "run-*"))
				if len(mine) == 0 {
					t.Fatalf("control: no overlay work directory under %s while the run lives", state)
				}
			}
			// Control: a sweep while the owner lives leaves them alone.
			if code, _, errOut := cli(t, ws, "", "run", "--backend", b, "--", "true"); code != 0 {
				t.Fatalf("run beside the live one: exit %d: %s", code, errOut)
			}
			for _, d := range mine {
				if _, err := os.Stat(d); err != nil {
					t.Fatalf("control: a start swept %s while its owner lives: %v", d, err)
				}
			}
			_ = c.Process.Signal(syscall.SIGKILL)
			_ = c.Wait()
			time.Sleep(100 * time.Millisecond) // the init's parent-death path ends the tree
			// Nothing of the killed process runs any more, so only a
			// sweep can remove its directories now. Another ringfence
			// starting meanwhile (a parallel test, another user of this
			// machine's /tmp) may sweep first: that is the mechanism too.
			for _, d := range mine {
				if _, err := os.Stat(d); err != nil {
					t.Logf("%s was swept by a concurrent ringfence start before ours", d)
				}
			}
			if code, _, errOut := cli(t, ws, "", "run", "--backend", b, "--", "true"); code != 0 {
				t.Fatalf("next run: exit %d: %s", code, errOut)
			}
			for _, d := range mine {
				if _, err := os.Lstat(d); !os.IsNotExist(err) {
					t.Errorf("%s survives the next start: a killed ringfence left it behind", d)
				}
			}
		})
	}
}
