package landlock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	rfrun "github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

var errNoScopes = errors.New("this kernel's Landlock has no scopes (ABI < 6)")

// stopTreeScript starts a background child and a setsid'd daemon, records
// the host pids of all three, then tries to stop its init (recording
// whether kill succeeded). The record of the stop goes through a
// descriptor opened before it: opening a file for writing is a call the
// init's guard answers, and a stopped init answers none.
const stopTreeScript = `
echo $PPID > "$D/init"
read top _ < /proc/self/stat; echo $top > "$D/top"
sh -c 'read p _ < /proc/self/stat; echo $p > "$D/child"; exec sleep 1000' &
( setsid sh -c 'read p _ < /proc/self/stat; echo $p > "$D/daemon"; exec sleep 1000' </dev/null >/dev/null 2>&1 & )
while [ ! -s "$D/child" ] || [ ! -s "$D/daemon" ]; do sleep 0.01; done
exec 3>"$D/stop"
kill -STOP $PPID; echo $? >&3
sleep 1000
`

func init() {
	helpers["supervise"] = func() { superviseTree(os.Getenv("RF_LL_DIR"), os.Getenv("RF_LL_SHARED") == "1") }
}

// superviseTree is the helper supervisor: it runs stopTreeScript under
// the backend (no cgroup: the init alone must end the tree) and never
// returns on its own; the test SIGKILLs it.
func superviseTree(dir string, shared bool) {
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: dir, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: dir, Access: policy.Write, Origin: policy.FromMode}}}
	prov := &Provider{opts: Options{sharedDomain: shared}}
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", stopTreeScript}, Policy: p,
		Env: []string{"PATH=/usr/bin:/bin", "D=" + dir}})
	if err == nil {
		_, err = rfrun.Run(context.Background(), c, rfrun.Options{Timeout: time.Minute, CgroupRoot: "/nonexistent"})
	}
	fmt.Fprintln(os.Stderr, "supervise: run returned", err)
	os.Exit(3)
}

// killSupervisor starts the helper supervisor, waits for the tree, SIGKILLs
// the supervisor and returns the tree's pids and whether the command could
// stop its init.
func killSupervisor(t *testing.T, shared bool) (map[string]int, bool) {
	t.Helper()
	if ABI() < 6 {
		testenv.Need(t, "Landlock scopes (ABI 6)", errNoScopes)
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = []string{"RF_LL_HELPER=supervise", "RF_LL_DIR=" + dir, "TMPDIR=" + os.TempDir()}
	if shared {
		cmd.Env = append(cmd.Env, "RF_LL_SHARED=1")
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pids := map[string]int{}
	for _, name := range []string{"init", "stop", "top", "child", "daemon"} {
		b := waitFile(t, filepath.Join(dir, name), &stderr)
		n, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("bad %s: %q", name, b)
		}
		pids[name] = n
	}
	stopped := pids["stop"] == 0
	delete(pids, "stop")
	// The init is a survivor only of the control's making (stopped, it
	// cannot exit): it is cleaned up, not judged.
	initPid := pids["init"]
	delete(pids, "init")
	t.Cleanup(func() { _ = syscall.Kill(-initPid, syscall.SIGKILL); _ = syscall.Kill(initPid, syscall.SIGKILL) })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return pids, stopped
}

func waitFile(t *testing.T, path string, stderr *strings.Builder) []byte {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return b
		}
	}
	t.Fatalf("timed out waiting for %s (supervisor: %s)", filepath.Base(path), stderr.String())
	return nil
}

// survivors waits up to two seconds for pids to die; it returns the live ones.
func survivors(pids map[string]int) []string {
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var left []string
		for name, pid := range pids {
			if alive(pid) {
				left = append(left, name)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i < 0 || !strings.HasPrefix(string(b)[i+1:], " Z")
}

// killAll cleans up after a control: the recorded pids and the top
// shell's process group (its own final sleep is in it).
func killAll(pids map[string]int) {
	if top := pids["top"]; top > 0 {
		_ = syscall.Kill(-top, syscall.SIGKILL)
	}
	for _, pid := range pids {
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// The command tries to stop its init, then ringfence is SIGKILLed: nothing
// of the tree may survive, the setsid'd daemon included. The control (the
// command in its init's domain) stops the init, and the tree outlives
// ringfence: a stopped init cannot act on its parent-death signal.
func TestStoppedInitAndKilledSupervisorLeaveNoSurvivors(t *testing.T) {
	t.Run("control", func(t *testing.T) {
		pids, stopped := killSupervisor(t, true)
		defer killAll(pids)
		left := survivors(pids)
		if !stopped || len(left) == 0 {
			t.Fatalf("control: stopped the init %v, survivors %v: want the attack to work", stopped, left)
		}
		t.Logf("control: survivors %v", left)
	})
	t.Run("own-domain", func(t *testing.T) {
		pids, stopped := killSupervisor(t, false)
		defer killAll(pids)
		if stopped {
			t.Errorf("the command stopped its init")
		}
		if left := survivors(pids); len(left) > 0 {
			t.Fatalf("survived ringfence's SIGKILL: %v", left)
		}
	})
}
