//go:build linux

package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/outcome"
)

// The attack: a command that double-forks a daemon through setsid, so it
// is in another session and group and re-parented out of the tree. This
// test shows it escapes a plain process-group kill — what a naive
// supervisor does — which is what the tree-kill tests below must beat.
func TestSetsidEscapesPlainGroupKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", daemonScript)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "D=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	waitTree(t, dir)
	pids := readPids(t, dir)
	defer killPids(pids)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	left := survivors(pids)
	if len(left) != 1 || left[0] != "daemon" {
		t.Fatalf("survivors of a plain group kill: %v, want exactly the setsid daemon", left)
	}
}

// A timeout stops the whole tree, the setsid'd daemon included, in every
// mode the supervisor offers.
func TestTimeoutKillsWholeTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode string
		o    Options
	}{
		// The cgroup census finds the re-parented daemon.
		{"process-group with cgroup", "pgroup", Options{}},
		// No cgroup: the subreaper keeps the daemon in reach.
		{"process-group with reaper", "pgroup", Options{Reaper: true, CgroupRoot: "/nonexistent"}},
		// The kernel ends the namespace with its init.
		{"pid namespace", "pidns", Options{CgroupRoot: "/nonexistent"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode == "pidns" {
				needPidns(t)
			}
			dir := t.TempDir()
			tc.o.Timeout = 2 * time.Second
			r := mustRun(t, treeCmd(tc.mode, dir), tc.o)
			pids := readPids(t, dir)
			defer killPids(pids)
			if !r.TimedOut || r.ExitCode != nil || r.Breach != outcome.BreachNone {
				t.Errorf("facts: timedOut %v exit %v breach %q", r.TimedOut, r.ExitCode, r.Breach)
			}
			if string(r.Stdout) != "ready\n" {
				t.Errorf("the tree never got ready in time: stdout %q", r.Stdout)
			}
			if left := survivors(pids); len(left) > 0 {
				t.Fatalf("survived the timeout: %v", left)
			}
		})
	}
}

// Without a cgroup or a reaper, the supervisor's sweep still ends a setsid
// child that is attached to the tree, which a group kill alone misses; a
// daemon already re-parented away is out of its reach (documented gap).
func TestSweepCatchesAttachedSetsidChild(t *testing.T) {
	dir := t.TempDir()
	script := `setsid sh -c 'read p _ < /proc/self/stat; echo $p > "$D/child"; exec sleep 1000' &
while [ ! -s "$D/child" ]; do sleep 0.01; done; read p _ < /proc/self/stat; echo $p > "$D/top"; echo $p > "$D/daemon"; sleep 1000`
	c := shCmd(script, "D="+dir)
	r := mustRun(t, c, Options{Timeout: time.Second, CgroupRoot: "/nonexistent"})
	pids := readPids(t, dir)
	defer killPids(pids)
	if !r.TimedOut || r.TreeKill != confine.KillProcessGroup {
		t.Fatalf("facts %+v", r)
	}
	if left := survivors(pids); len(left) > 0 {
		t.Fatalf("survived: %v", left)
	}
}

func TestCancellationAborts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	dir := t.TempDir()
	r, err := Run(ctx, treeCmd("pgroup", dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pids := readPids(t, dir)
	defer killPids(pids)
	if !r.Aborted || r.TimedOut || r.ExitCode != nil {
		t.Fatalf("facts: aborted %v timedOut %v exit %v", r.Aborted, r.TimedOut, r.ExitCode)
	}
	if left := survivors(pids); len(left) > 0 {
		t.Fatalf("survived the cancellation: %v", left)
	}
}

func TestWallClockIsABreach(t *testing.T) {
	o := Options{Timeout: time.Minute}
	o.Limits.WallClock = 200 * time.Millisecond
	r := mustRun(t, shCmd("sleep 1000"), o)
	if !r.TimedOut || r.Breach != outcome.BreachWallClock || r.ExitCode != nil || r.DurationMs < 200 {
		t.Fatalf("facts %+v", r)
	}
}

// An output flood past the ceiling is cut, counted, and stops the tree.
func TestOutputCeilingStopsTree(t *testing.T) {
	dir := t.TempDir()
	script := `read p _ < /proc/self/stat; echo $p > "$D/top"; echo $p > "$D/child"; echo $p > "$D/daemon"
yes ringfence`
	r := mustRun(t, shCmd(script, "D="+dir), Options{MaxStdout: 1 << 20, Timeout: time.Minute})
	pids := readPids(t, dir)
	defer killPids(pids)
	if r.Breach != outcome.BreachOutput || r.ExitCode != nil || r.TimedOut {
		t.Fatalf("facts: breach %q exit %v timedOut %v", r.Breach, r.ExitCode, r.TimedOut)
	}
	if len(r.Stdout) != 1<<20 || r.Truncated == nil || r.Truncated.Stdout <= 1<<20 || r.Truncated.Stderr != 0 {
		t.Fatalf("captured %d, truncated %+v", len(r.Stdout), r.Truncated)
	}
	if left := survivors(pids); len(left) > 0 {
		t.Fatalf("the flood survived: %v", left)
	}
}

func TestStderrCeiling(t *testing.T) {
	r := mustRun(t, shCmd("head -c 5000 /dev/zero >&2"), Options{MaxStderr: 1000, KeepRunningPastCeiling: true})
	if len(r.Stderr) != 1000 || r.Truncated == nil || r.Truncated.Stderr != 5000 || r.Truncated.Stdout != 0 {
		t.Fatalf("stderr %d truncated %+v", len(r.Stderr), r.Truncated)
	}
}

// Stale groups of a dead supervisor are removed when empty, never when
// they still hold something, and never when their supervisor lives.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	self := "ringfence-" + strconv.Itoa(os.Getpid()) + "-1"
	for _, d := range []string{"ringfence-999999-1", "ringfence-999999-2/held", self} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepStale(dir)
	for d, want := range map[string]bool{"ringfence-999999-1": false, "ringfence-999999-2": true, self: true} {
		if _, err := os.Stat(filepath.Join(dir, d)); (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", d, err == nil, want)
		}
	}
}
