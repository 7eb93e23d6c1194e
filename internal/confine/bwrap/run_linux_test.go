package bwrap_test

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// result is what one supervised run produced.
type result struct {
	code           int
	stdout, stderr string
	status         status.Summary
	cmd            *confine.Cmd
}

// provider is the backend under test; its shim is the carried image, or
// the test binary where that is not shown fresh (initimage).
// It runs as root and, rerun by TestAsNonRoot, as an unprivileged user.
func provider(t *testing.T) *bwrap.Provider {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := bwrap.New(bwrap.Options{Self: self})
	testenv.Need(t, "bwrap", p.Available())
	return p
}

// supervise does what internal/run does with a Cmd, minimally: start it,
// close the parent's copies of ExtraFiles, read Status to EOF, wait.
func supervise(t *testing.T, cmd *confine.Cmd, stdin string) result {
	t.Helper()
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Env, c.Dir, c.ExtraFiles, c.SysProcAttr = cmd.Env, cmd.Dir, cmd.ExtraFiles, cmd.SysProcAttr
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr, c.Stdin = &out, &errb, strings.NewReader(stdin)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	if cmd.Setup != nil {
		if err := cmd.Setup(c.Process.Pid); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan status.Summary, 1)
	go func() { done <- status.Read(cmd.Status) }()
	_ = c.Wait()
	var sum status.Summary
	select {
	case sum = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("status channel never reached EOF")
	}
	if cmd.Cleanup != nil {
		cmd.Cleanup()
	}
	return result{code: c.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String(), status: sum, cmd: cmd}
}

// runIn confines argv under pol and runs it.
func runIn(t *testing.T, p confine.Provider, pol *policy.Policy, argv ...string) result {
	t.Helper()
	if len(argv) > 0 && argv[0] == self(t) {
		pol = showHelper(pol, argv[0])
	}
	cmd, err := p.Confine(confine.Request{Argv: argv, Policy: pol, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	return supervise(t, cmd, "")
}

// showHelper returns pol with the test binary, run inside the sandbox as a
// helper (`__attack`, `__pid1`), readable: the view shows nothing of the
// binary on its own (the shim runs from a descriptor, not from a bound
// path), and go test builds it under /tmp, which the sandbox makes private.
func showHelper(pol *policy.Policy, exe string) *policy.Policy {
	c := *pol
	c.Layers = append(slices.Clone(pol.Layers), policy.Layer{Path: exe, Access: policy.Read})
	policy.SortLayers(c.Layers)
	return &c
}

// workspace is a write policy over a fresh root, host readable.
func workspace(t *testing.T, net policy.NetworkMode) *policy.Policy {
	t.Helper()
	root := t.TempDir()
	return &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: root, Access: policy.Write}}, Network: policy.Network{Mode: net}}
}

func TestRunStatus(t *testing.T) {
	p := provider(t)
	pol := workspace(t, policy.NetDeny)
	r := runIn(t, p, pol, "sh", "-c", "echo out; echo err >&2; exit 7")
	if r.code != 7 || r.stdout != "out\n" || !r.status.Started || r.status.Exit == nil || *r.status.Exit.ExitCode != 7 {
		t.Fatalf("got code %d stdout %q stderr %q status %+v", r.code, r.stdout, r.stderr, r.status)
	}
	r = runIn(t, p, pol, "sh", "-c", "kill -9 $$")
	if r.status.Exit == nil || r.status.Exit.Signal != "SIGKILL" || r.code != 137 {
		t.Fatalf("signal death: code %d status %+v", r.code, r.status.Exit)
	}
	cmd, err := p.Confine(confine.Request{Argv: []string{"cat"}, Policy: pol, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if r = supervise(t, cmd, "hello\n"); r.stdout != "hello\n" {
		t.Fatalf("stdin: stdout %q stderr %q", r.stdout, r.stderr)
	}
	r = runIn(t, p, pol, "/no/such/program")
	if r.status.Failure == nil || r.status.Failure.Reason != status.NotFound || r.status.Started {
		t.Fatalf("missing program: status %+v stderr %q", r.status, r.stderr)
	}
	r = runIn(t, p, pol, "no-such-program-on-path")
	if r.status.Failure == nil || r.status.Failure.Reason != status.NotFound || r.code != 127 {
		t.Fatalf("missing program on PATH: code %d status %+v", r.code, r.status)
	}
	r = runIn(t, p, pol, "/etc/hostname")
	if r.status.Failure == nil || r.status.Failure.Reason != status.NotExecutable || r.code != 126 {
		t.Fatalf("not executable: code %d status %+v", r.code, r.status)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestShimOutlastsSignals: the shim is the sandbox's pid 1, so the command
// (same uid) can neither kill nor stop it — the kernel drops SIGKILL and
// SIGSTOP sent to a namespace's init from inside — and it catches every
// other signal, so none of them ends it and with it the command's run.
// Control: the same shim run as an ordinary process dies of the SIGKILL.
func TestShimOutlastsSignals(t *testing.T) {
	p := provider(t)
	pol := workspace(t, policy.NetDeny)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctl := exec.Command(self(t), bwrap.ShimArg, "3", "--", "sh", "-c", `kill -KILL $PPID; sleep 1`)
	ctl.ExtraFiles = []*os.File{w}
	err = ctl.Run()
	_ = w.Close()
	if ws, ok := ctl.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("control: the shim as an ordinary process survived SIGKILL from its command (%v), so this test cannot fail", err)
	}

	script := `for s in KILL STOP ABRT SEGV BUS TRAP SYS ALRM PIPE CONT; do kill -$s 1 || exit 9; done
		sleep 0.3; echo alive > "$0/out"; exit 5`
	res := runIn(t, p, pol, "sh", "-c", script, pol.Root)
	if content(pol.Root+"/out") != "alive\n" || res.code != 5 || res.status.Exit == nil || res.status.Exit.ExitCode == nil || *res.status.Exit.ExitCode != 5 {
		t.Fatalf("the shim did not outlast the command's signals: exit %d, %+v, stderr %q", res.code, res.status, res.stderr)
	}
}
