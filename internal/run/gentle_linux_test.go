//go:build linux

package run

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// trapScript writes $1/trapped when SIGTERM reaches it, while its
// foreground child sleeps: a shell runs a trap only after its foreground
// command ends, so the trap runs promptly only if the sleep got SIGTERM too.
const trapScript = `trap 'echo term > "$0/trapped"; exit 7' TERM; sleep 30; echo late > "$0/late"`

func TestTimeoutTermThenKill(t *testing.T) {
	for _, reaper := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "reaper"}[reaper]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			c := shCmd(trapScript)
			c.Args = append(c.Args, dir)
			begin := time.Now()
			r := mustRun(t, c, Options{Timeout: 200 * time.Millisecond, KillAfter: 5 * time.Second, Reaper: reaper})
			took := time.Since(begin)
			if !r.TimedOut || r.ExitCode != nil {
				t.Fatalf("timedOut %v exit %v, want a timeout with no exit code", r.TimedOut, r.ExitCode)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "trapped")); err != nil || string(b) != "term\n" {
				t.Fatalf("the trap did not run: %v %q", err, b)
			}
			if took > 3*time.Second {
				t.Fatalf("took %v: the grace was waited out although the tree ended on SIGTERM", took)
			}
		})
	}
}

// TestTimeoutKillsAfterGrace is the control: a tree that ignores SIGTERM
// is SIGKILLed once the grace has passed, and not before.
func TestTimeoutKillsAfterGrace(t *testing.T) {
	dir := t.TempDir()
	c := shCmd(`trap '' TERM; sleep 30 & wait; echo late > "$0/late"`)
	c.Args = append(c.Args, dir)
	begin := time.Now()
	r := mustRun(t, c, Options{Timeout: 100 * time.Millisecond, KillAfter: 700 * time.Millisecond, Reaper: true})
	took := time.Since(begin)
	if !r.TimedOut {
		t.Fatalf("not timed out: %+v", r)
	}
	if took < 700*time.Millisecond || took > 5*time.Second {
		t.Fatalf("took %v, want the 100ms timeout plus the 700ms grace", took)
	}
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Fatal("the command ran on past its kill")
	}
}

// TestNoGraceKillsAtOnce: KillAfter zero keeps the old behaviour, so the
// trap never runs.
func TestNoGraceKillsAtOnce(t *testing.T) {
	dir := t.TempDir()
	c := shCmd(trapScript)
	c.Args = append(c.Args, dir)
	r := mustRun(t, c, Options{Timeout: 200 * time.Millisecond})
	if !r.TimedOut {
		t.Fatalf("not timed out: %+v", r)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "trapped")); err == nil {
		t.Fatal("a trap ran although the tree was SIGKILLed")
	}
}

func TestContextDeadlineIsATimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r, err := Run(ctx, shCmd("sleep 30"), Options{KillAfter: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || r.Aborted {
		t.Fatalf("timedOut %v aborted %v, want a timeout", r.TimedOut, r.Aborted)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	r, err = Run(ctx, shCmd("sleep 30"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.TimedOut || !r.Aborted {
		t.Fatalf("timedOut %v aborted %v, want an abort", r.TimedOut, r.Aborted)
	}
}
