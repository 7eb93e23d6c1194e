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

// stand is what ringfence is to bwrap: `__parent N ARGV…` starts ARGV as
// its child, passing its descriptors 3…3+N-1 on, and waits for it.
func stand(args []string) int {
	n, _ := strconv.Atoi(args[0])
	c := exec.Command(args[1], args[2:]...)
	for i := 0; i < n; i++ {
		c.ExtraFiles = append(c.ExtraFiles, os.NewFile(uintptr(3+i), "inherited"))
	}
	c.Stdin, c.Stdout, c.Stderr = nil, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		return 1
	}
	return 0
}

// The sandboxed tree tries to outlive its supervisor: a process that left
// the session, one that ignores SIGHUP and SIGTERM, and signals to pid 1.
const clingScript = `setsid sleep 300 & (trap "" HUP TERM; sleep 300) & kill -STOP 1 2>/dev/null; kill -KILL 1 2>/dev/null
echo ready > "$0/ready"; wait`

// TestDiesWithRingfence: SIGKILL the process that started bwrap (as
// ringfence would be killed: nothing of ours runs afterwards) and check
// from the host that nothing of the sandbox survives. Control: under plain
// bwrap without --die-with-parent the same tree outlives its parent, so
// the check sees survivors when there are any.
func TestDiesWithRingfence(t *testing.T) {
	p := provider(t)
	pol := workspace(t, policy.NetDeny)

	ctl := exec.Command(self(t), "__parent", "0", "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--bind", pol.Root, pol.Root, "--unshare-user", "--unshare-pid", "--unshare-net", "--new-session", "--",
		"sh", "-c", clingScript, pol.Root)
	ns, bw := startAndKill(t, ctl, pol.Root)
	time.Sleep(300 * time.Millisecond)
	left := inNamespace(ns)
	if len(left) == 0 {
		t.Fatal("control: the tree died with its parent without --die-with-parent, so this test cannot fail")
	}
	killAll(append(left, strconv.Itoa(bw)))
	_ = os.Remove(pol.Root + "/ready")

	cmd, err := p.Confine(confine.Request{Argv: []string{"sh", "-c", clingScript, pol.Root}, Policy: pol, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	defer cmd.Cleanup()
	go func() { _, _ = io.Copy(io.Discard, cmd.Status) }()
	c := exec.Command(self(t), append([]string{"__parent", strconv.Itoa(len(cmd.ExtraFiles))}, cmd.Args...)...)
	c.Env, c.Dir, c.ExtraFiles = cmd.Env, cmd.Dir, cmd.ExtraFiles
	ns, bw = startAndKill(t, c, pol.Root)
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	t.Cleanup(func() { // survivors of a failure, which this test started
		if t.Failed() {
			killAll(append(inNamespace(ns), strconv.Itoa(bw)))
		}
	})
	waitFor(t, func() bool { return len(inNamespace(ns)) == 0 && !exists("/proc/"+strconv.Itoa(bw)) })
}

// startAndKill starts the stand-in parent, waits until the sandboxed tree
// is ready, SIGKILLs the stand-in and returns the sandbox's pid namespace
// and bwrap's pid.
func startAndKill(t *testing.T, c *exec.Cmd, root string) (string, int) {
	t.Helper()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
	waitFor(t, func() bool { return exists(root + "/ready") })
	kids := children(c.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("the stand-in parent has %d children, want bwrap alone", len(kids))
	}
	bw, _ := strconv.Atoi(kids[0])
	ns := pidNS(t, bw)
	if n := len(inNamespace(ns)); n < 3 {
		t.Fatalf("%d processes in the sandbox before the kill, want at least 3: the check cannot see them", n)
	}
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	return ns, bw
}

// children of pid, whichever of its threads forked them.
func children(pid int) []string {
	var out []string
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	for _, task := range tasks {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/children")
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// killAll ends the control's survivors, which this test started.
func killAll(pids []string) {
	for _, s := range pids {
		if pid, err := strconv.Atoi(s); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
