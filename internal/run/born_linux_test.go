package run

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// A gated runner — one that waits for its spec and its admission, as the
// linux init does — is born inside its group, like any other: it is
// already there when its spec is written, before place, so place has
// nothing to move. Control: the test process itself, read the same way,
// is not in a run's group.
func TestGatedRunnerIsBornInsideItsGroup(t *testing.T) {
	needQuota(t)
	var atStage string
	c := shCmd("sleep 0.3")
	c.Stage = func(pid int) (func() error, error) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
		atStage = string(b)
		return func() error { return nil }, err
	}
	r := mustRun(t, c, Options{Limits: policy.Limits{Processes: 8}})
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("exit %v, stderr %s", r.ExitCode, r.Stderr)
	}
	group := "/ringfence-" + strconv.Itoa(os.Getpid()) + "-"
	if at, ok := ownCgroup(atStage, "pids"); !ok || !strings.Contains(at, group) {
		t.Fatalf("the runner was outside its group when staged:\n%s", atStage)
	}
	self, _ := os.ReadFile("/proc/self/cgroup")
	if at, _ := ownCgroup(string(self), "pids"); strings.Contains(at, group) {
		t.Fatalf("control: the test process reads as inside a run's group: %s", at)
	}
}

// place moves a process only when /proc says it is not in the group
// already: here the group's directory has no cgroup.procs to write, so a
// move fails, and a process already at the group's path is accepted
// without one. Control: the same process against another path is moved
// (and the move fails).
func TestPlaceChecksBeforeMoving(t *testing.T) {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip("no /proc/self/cgroup:", err)
	}
	ctrl := "pids"
	own, ok := ownCgroup(string(self), ctrl)
	if !ok {
		ctrl = ""
		if own, ok = ownCgroup(string(self), ctrl); !ok {
			t.Skip("this process is in no pids or v2 group")
		}
	}
	v2 := ctrl == ""
	g := &cgroup{v2: v2, dirs: map[string]string{ctrl: t.TempDir()}, rels: map[string]string{ctrl: own}, fd: -1}
	if err := g.place(os.Getpid()); err != nil {
		t.Fatalf("place of a process already inside: %v", err)
	}
	g.rels[ctrl] = own + "/elsewhere"
	if err := g.place(os.Getpid()); err == nil {
		t.Fatal("control: place of a process outside the group wrote nothing")
	}
}
