//go:build linux

package run

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// killSupervisorMidRun re-executes the test binary as a supervisor running the
// daemon tree in mode, waits until the tree is up, and SIGKILLs it.
func killSupervisorMidRun(t *testing.T, mode string) map[string]int {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = []string{"RF_RUN_HELPER=supervise", "RF_RUN_MODE=" + mode, "RF_RUN_DIR=" + dir}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitTree(t, dir)
	pids := readPids(t, dir)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return pids
}

// If ringfence is SIGKILLed mid-run, nothing it started keeps running: the
// pid namespace's init dies by its parent-death signal and takes the
// namespace with it; in process-group mode the subreaper catches its
// parent-death signal and ends the tree, the setsid'd daemon included.
func TestSupervisorKilledLeavesNoSurvivors(t *testing.T) {
	for _, mode := range []string{"pidns", "reaper"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "pidns" {
				needPidns(t)
			}
			pids := killSupervisorMidRun(t, mode)
			defer killPids(pids)
			if left := survivors(pids); len(left) > 0 {
				t.Fatalf("survived the supervisor's SIGKILL: %v", left)
			}
		})
	}
}

// The gap the reaper closes, shown: a plain process-group run loses its
// tree when the supervisor is SIGKILLed — only the direct child has a
// parent-death signal, so its children and the daemon live on. This is
// why process-group mode is reported as weaker, and why Options.Reaper
// exists.
func TestSupervisorKilledPlainGroupLeaks(t *testing.T) {
	pids := killSupervisorMidRun(t, "pgroup")
	defer killPids(pids)
	left := survivors(pids)
	if alive(pids["top"]) || len(left) == 0 {
		t.Fatalf("survivors %v: want the direct child dead and its descendants alive", left)
	}
}
