package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	rfrun "github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// startInit confines a command that leaves a marker in the workspace and
// starts its init the way the supervisor does, without Setup or Stage.
func startInit(t *testing.T) (c *confine.Cmd, cmd *exec.Cmd, marker string) {
	t.Helper()
	root := t.TempDir()
	marker = filepath.Join(root, "marker")
	c, cmd = startScript(t, root, "echo ran > "+marker)
	return c, cmd, marker
}

// startScript starts, the same way, an init for a shell script whose
// workspace is root.
func startScript(t *testing.T, root, script string) (c *confine.Cmd, cmd *exec.Cmd) {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script},
		Policy: testPolicy(t, root), Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	t.Cleanup(c.Cleanup)
	cmd = &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir,
		ExtraFiles: c.ExtraFiles, SysProcAttr: c.SysProcAttr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for _, f := range c.ExtraFiles {
		f.Close()
	}
	return c, cmd
}

// gateFD is the descriptor the init was told its gate is.
func gateFD(t *testing.T, c *confine.Cmd) int {
	t.Helper()
	fd, gated, err := initproc.ParseGate(c.Args[2:])
	if err != nil || !gated {
		t.Fatalf("the linux backend's init is not gated: %q (%v)", c.Args, err)
	}
	return fd
}

// waitAtGate returns once the init's main thread is confined and blocked
// on its gate: whatever it has not started by then it holds back for the
// gate alone. Seccomp is the init's last restriction (/proc/PID/status,
// readable by anyone); where /proc/PID/syscall is readable too (root) the
// thread must be seen in read(2) on the gate ("nr fd ..."), else it is
// given 300 ms more.
func waitAtGate(t *testing.T, pid, fd int) {
	t.Helper()
	want := strconv.Itoa(unix.SYS_READ) + " 0x" + strconv.FormatInt(int64(fd), 16) + " "
	proc := "/proc/" + strconv.Itoa(pid)
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, _ := os.ReadFile(proc + "/status")
		if strings.Contains(string(st), "\nSeccomp:\t2\n") {
			b, err := os.ReadFile(proc + "/syscall")
			if errors.Is(err, os.ErrPermission) {
				time.Sleep(300 * time.Millisecond)
				return
			}
			if err == nil && strings.HasPrefix(string(b), want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the init never waited at its gate (fd %d)", fd)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func present(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	return err == nil
}

// A staged init builds its whole confinement but starts nothing of the
// command until admitted: a supervisor still placing it under its limits
// (a cgroup) can be sure nothing runs outside them. Control: admitted at
// once (Setup, what a caller that places nothing uses), the same command
// runs without anyone opening anything more.
func TestGateHoldsTheCommandUntilAdmitted(t *testing.T) {
	c, cmd, marker := startInit(t)
	admit, err := c.Stage(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("Stage: %v", err)
	}
	waitAtGate(t, cmd.Process.Pid, gateFD(t, c))
	time.Sleep(100 * time.Millisecond)
	if present(t, marker) {
		t.Fatal("the command ran before the init was admitted")
	}
	if err := admit(); err != nil {
		t.Fatalf("admit: %v", err)
	}
	sum := status.Read(c.Status)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("init: %v (status %+v)", err, sum)
	}
	if !present(t, marker) || !sum.Started {
		t.Fatalf("admitted, the command did not run: status %+v", sum)
	}

	// Control: Setup admits at once.
	c, cmd, marker = startInit(t)
	if err := c.Setup(cmd.Process.Pid); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	sum = status.Read(c.Status)
	if err := cmd.Wait(); err != nil || !present(t, marker) {
		t.Fatalf("control: the command did not run (%v, status %+v)", err, sum)
	}
}

// A gate that closes without admission (the supervisor died or gave up
// placing the init) fails the set-up: the command never runs.
func TestGateClosedNeverAdmits(t *testing.T) {
	c, cmd, marker := startInit(t)
	if _, err := c.Stage(cmd.Process.Pid); err != nil {
		t.Fatalf("Stage: %v", err)
	}
	waitAtGate(t, cmd.Process.Pid, gateFD(t, c))
	c.Cleanup() // closes the gate's write end, unopened
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != initproc.ExitSetup {
		t.Fatalf("init ended with %v, want exit %d (set-up failed)", err, initproc.ExitSetup)
	}
	if present(t, marker) {
		t.Fatal("the command ran although the gate was never opened")
	}
}

// Through run.Run with a process limit the command starts inside the run's
// cgroup (the init is admitted only once placed). Where no cgroup can be
// made (not root) there is nothing to place (a skip, which
// RINGFENCE_REQUIRE_ALL turns into a failure).
func TestCommandStartsInsideItsGroup(t *testing.T) {
	root := t.TempDir()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/cat", "/proc/self/cgroup"},
		Policy: testPolicy(t, root), Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	r, err := rfrun.Run(context.Background(), c, rfrun.Options{Timeout: time.Minute, Limits: policy.Limits{Processes: 64}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("exit %v, status %+v, stderr %s", r.ExitCode, r.Status, r.Stderr)
	}
	if r.Resources != rfrun.ResourcesQuota {
		testenv.Need(t, "a cgroup for the run", fmt.Errorf("resources %q: nothing is placed", r.Resources))
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	if !strings.Contains(string(r.Stdout), "ringfence-") || string(r.Stdout) == string(self) {
		t.Fatalf("the command started outside its group:\n%s", r.Stdout)
	}
}

// The init catches the signals it forwards from its first step (so the
// runtime's round trips for them overlap the set-up), but one that
// arrives before the command is about to start still ends the init, as it
// did when they were caught only from then on: nothing runs and nothing is
// reported, never a command started only to be sent a stale SIGTERM.
// Control: the same SIGTERM once the command runs reaches the command.
func TestSignalBeforeStartEndsTheInit(t *testing.T) {
	c, cmd, marker := startInit(t)
	admit, err := c.Stage(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("Stage: %v", err)
	}
	waitAtGate(t, cmd.Process.Pid, gateFD(t, c))
	if err := cmd.Process.Signal(unix.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the runtime queues it for the init
	_ = admit()                       // EPIPE is fine: the init may be gone already
	sum := status.Read(c.Status)
	_ = cmd.Wait()
	if present(t, marker) || sum.Started || !sum.Silent || cmd.ProcessState.ExitCode() == 0 {
		t.Fatalf("a SIGTERM before the start did not end the init: exit %d, status %+v, ran %v",
			cmd.ProcessState.ExitCode(), sum, present(t, marker))
	}

	// Control: once the command runs, the same signal is the command's.
	root := t.TempDir()
	ready, got := filepath.Join(root, "ready"), filepath.Join(root, "got")
	c, cmd = startScript(t, root, `trap 'echo term > `+got+`; exit 3' TERM; echo > `+ready+`; while :; do sleep 0.01; done`)
	if err := c.Setup(cmd.Process.Pid); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	for deadline := time.Now().Add(20 * time.Second); !present(t, ready); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("control: the command never started")
		}
	}
	if err := cmd.Process.Signal(unix.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sum = status.Read(c.Status)
	_ = cmd.Wait()
	if !present(t, got) || sum.Exit == nil || sum.Exit.ExitCode == nil || *sum.Exit.ExitCode != 3 {
		t.Fatalf("control: SIGTERM did not reach the running command: status %+v", sum)
	}
}
