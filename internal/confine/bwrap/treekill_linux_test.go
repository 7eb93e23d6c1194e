package bwrap_test

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// TestTreeKill: killing bwrap (what the supervisor does) ends every process
// in the sandbox, including one that left the session with setsid.
func TestTreeKill(t *testing.T) {
	p := provider(t)
	pol := workspace(t, policy.NetDeny)
	script := `setsid sleep 300 & sleep 300 & echo ready > "$0/ready"; wait`
	cmd, err := p.Confine(confine.Request{Argv: []string{"sh", "-c", script, pol.Root}, Policy: pol, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.TreeKill != confine.KillPidNamespace {
		t.Fatalf("TreeKill = %s", cmd.TreeKill)
	}
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Env, c.Dir, c.ExtraFiles = cmd.Env, cmd.Dir, cmd.ExtraFiles
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	defer cmd.Cleanup()
	go func() { _, _ = io.Copy(io.Discard, cmd.Status) }()
	waitFor(t, func() bool { _, err := os.Stat(pol.Root + "/ready"); return err == nil })
	ns := pidNS(t, c.Process.Pid)
	if n := len(inNamespace(ns)); n < 3 {
		t.Fatalf("found %d processes in the sandbox before the kill, want at least 3 (init, sh, sleeps): the check cannot see them", n)
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	waitFor(t, func() bool { return len(inNamespace(ns)) == 0 })
}

// pidNS is the pid namespace of bwrap's first child, the sandbox's init.
func pidNS(t *testing.T, bwrapPid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(bwrapPid) + "/task/" + strconv.Itoa(bwrapPid) + "/children")
	if err != nil || len(strings.Fields(string(b))) == 0 {
		t.Fatalf("bwrap has no child: %v", err)
	}
	ns, err := os.Readlink("/proc/" + strings.Fields(string(b))[0] + "/ns/pid")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// inNamespace lists host pids whose pid namespace is ns.
func inNamespace(ns string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if link, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && link == ns {
			if b, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !strings.Contains(string(b), ") Z ") {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSeccompLoaded: the filter refuses personality(ADDR_NO_RANDOMIZE),
// which works unconfined, so the filter is really in force under bwrap.
func TestSeccompLoaded(t *testing.T) {
	p := provider(t)
	if host(t, self(t), "__attack", "personality") != 0 {
		t.Fatal("personality(ADDR_NO_RANDOMIZE) fails unconfined, so this test cannot fail")
	}
	res := runIn(t, p, workspace(t, policy.NetDeny), self(t), "__attack", "personality")
	if !res.status.Started || res.code != 3 {
		t.Errorf("personality under bwrap: exit %d, %+v, %s", res.code, res.status, res.stderr)
	}
}
