package proctree

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// A walk finds a grandchild through its parent, and SignalAll ends both.
func TestDescendantsFindsGrandchildren(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var found []int
	for range 200 {
		if found = Descendants(os.Getpid()); len(found) >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(found) < 2 || found[0] != cmd.Process.Pid {
		t.Fatalf("Descendants = %v, want the shell %d and its sleep", found, cmd.Process.Pid)
	}
	if kids := Children(cmd.Process.Pid); len(kids) != 1 || !slices.Contains(found, kids[0]) {
		t.Fatalf("Children(shell) = %v, not within %v", kids, found)
	}
	sleeper := found[1]
	SignalAll(found[1:], syscall.SIGKILL)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the shell's wait did not see its sleep end: %v", err)
	}
	if err := syscall.Kill(sleeper, 0); err == nil {
		t.Fatalf("the sleep %d survived SignalAll", sleeper)
	}
}
