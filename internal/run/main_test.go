//go:build linux

package run

import (
	"context"
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
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/testenv"
)

// TestMain lets the test binary act as the reaper and as helper commands
// (a memory balloon, a supervisor to SIGKILL), so tests need no fixtures.
func TestMain(m *testing.M) {
	entry.Role("RF_RUN_HELPER", func(name string) int {
		switch name {
		case "balloon":
			balloon()
		case "supervise":
			supervise(os.Getenv("RF_RUN_MODE"), os.Getenv("RF_RUN_DIR"))
		case "replaced":
			replacedHelper()
		}
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
		return 100
	})
	entry.Tests(m)
}

// balloon touches RF_RUN_MIB MiB of memory 8 MiB at a time, then prints
// the number of chunks it holds.
func balloon() {
	mib, _ := strconv.Atoi(os.Getenv("RF_RUN_MIB"))
	var keep [][]byte
	for range mib / 8 {
		b := make([]byte, 8<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		keep = append(keep, b)
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Println(len(keep))
	os.Exit(0)
}

// supervise runs the daemon tree under Run and never returns on its own:
// the test SIGKILLs this process mid-run.
func supervise(mode, dir string) {
	c := treeCmd(mode, dir)
	o := Options{Timeout: time.Minute, Reaper: mode == "reaper", CgroupRoot: "/nonexistent"}
	_, err := Run(context.Background(), c, o)
	fmt.Fprintln(os.Stderr, "supervise: run returned", err)
	os.Exit(3)
}

// daemonScript starts, and records the host pids of: the top shell, a
// plain background child, and a daemon that double-forks through setsid
// (so it is in its own session and group and re-parented away from the
// tree). It then waits until all three pids are written and sleeps.
// /proc/self/stat read by a shell builtin gives the shell's own host pid
// even inside a new pid namespace (the host's procfs is still mounted).
const daemonScript = `
read top _ < /proc/self/stat; echo $top > "$D/top"
sh -c 'read p _ < /proc/self/stat; echo $p > "$D/child"; exec sleep 1000' &
( setsid sh -c 'read p _ < /proc/self/stat; echo $p > "$D/daemon"; exec sleep 1000' </dev/null >/dev/null 2>&1 & )
while [ ! -s "$D/child" ] || [ ! -s "$D/daemon" ]; do sleep 0.01; done
echo ready
sleep 1000
`

var treePids = []string{"top", "child", "daemon"}

// treeCmd is the daemon tree as a process-group Cmd or, for "pidns", as
// pid 1 of new user and pid namespaces.
func treeCmd(mode, dir string) *confine.Cmd {
	c := &confine.Cmd{
		Path: "/bin/sh", Args: []string{"sh", "-c", daemonScript},
		Env: []string{"PATH=/usr/bin:/bin", "D=" + dir}, TreeKill: confine.KillProcessGroup,
	}
	if mode == "pidns" {
		c.TreeKill = confine.KillPidNamespace
		c.SysProcAttr = pidnsAttr()
	}
	return c
}

func pidnsAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
}

// needPidns skips (or fails under RINGFENCE_REQUIRE_ALL) without user and
// pid namespaces.
func needPidns(t *testing.T) {
	t.Helper()
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = pidnsAttr()
	testenv.Need(t, "user+pid namespaces", cmd.Run())
}

// readPids reads the recorded pids of the tree.
func readPids(t *testing.T, dir string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, name := range treePids {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("the tree did not record %s: %v", name, err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("bad pid for %s: %q", name, b)
		}
		out[name] = pid
	}
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	st := string(b)
	i := strings.LastIndexByte(st, ')')
	return i < 0 || !strings.HasPrefix(st[i+1:], " Z")
}

// survivors waits up to two seconds for the pids to die and returns those
// still alive.
func survivors(pids map[string]int) []string {
	var left []string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		left = left[:0]
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

// killPids cleans up after a test that showed something survive: the
// recorded pids and the top shell's process group (its own unrecorded
// children, e.g. its final sleep, are in it).
func killPids(pids map[string]int) {
	if top := pids["top"]; top > 0 {
		_ = syscall.Kill(-top, syscall.SIGKILL)
	}
	for _, pid := range pids {
		if alive(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// waitTree waits until the tree has recorded every pid.
func waitTree(t *testing.T, dir string) {
	t.Helper()
	for _, name := range treePids {
		waitFile(t, filepath.Join(dir, name))
	}
}

// waitFile polls until path is non-empty.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", filepath.Base(path))
}
