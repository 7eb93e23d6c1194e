//go:build linux

package run

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/reaper"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
)

func shCmd(script string, env ...string) *confine.Cmd {
	return &confine.Cmd{
		Path: "/bin/sh", Args: []string{"sh", "-c", script},
		Env: append([]string{"PATH=/usr/bin:/bin"}, env...), TreeKill: confine.KillProcessGroup,
	}
}

func mustRun(t *testing.T, c *confine.Cmd, o Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), c, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return r
}

func TestExitCodesAndOutput(t *testing.T) {
	for _, tc := range []struct {
		script         string
		code           int
		stdout, stderr string
	}{
		{"exit 0", 0, "", ""},
		{"exit 3", 3, "", ""},
		{"echo out; echo err >&2; exit 42", 42, "out\n", "err\n"},
		{"printf 'a\\0b'", 0, "a\x00b", ""},
	} {
		r := mustRun(t, shCmd(tc.script), Options{})
		if r.ExitCode == nil || *r.ExitCode != tc.code {
			t.Errorf("%q: exit code %v, want %d", tc.script, r.ExitCode, tc.code)
		}
		if string(r.Stdout) != tc.stdout || string(r.Stderr) != tc.stderr {
			t.Errorf("%q: stdout %q stderr %q", tc.script, r.Stdout, r.Stderr)
		}
		if r.Truncated != nil || r.TimedOut || r.Aborted || r.Breach != outcome.BreachNone {
			t.Errorf("%q: unexpected facts %+v", tc.script, r)
		}
		if r.Resources != ResourcesNone || r.TreeKill != confine.KillProcessGroup {
			t.Errorf("%q: resources %q treeKill %q", tc.script, r.Resources, r.TreeKill)
		}
	}
}

func TestSignalledCommand(t *testing.T) {
	r := mustRun(t, shCmd("kill -TERM $$"), Options{})
	if r.ExitCode != nil || r.Signal != "SIGTERM" {
		t.Fatalf("exit %v signal %q, want nil SIGTERM", r.ExitCode, r.Signal)
	}
}

func TestStdin(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB: more than a pipe holds
	t.Run("bytes", func(t *testing.T) {
		r := mustRun(t, shCmd("cat"), Options{Stdin: bytes.NewReader(data)})
		if !bytes.Equal(r.Stdout, data) {
			t.Fatalf("got %d bytes back, want %d", len(r.Stdout), len(data))
		}
	})
	t.Run("stream", func(t *testing.T) {
		r := mustRun(t, shCmd("wc -c"), Options{Stdin: iotest.OneByteReader(bytes.NewReader(data[:4096]))})
		if strings.TrimSpace(string(r.Stdout)) != "4096" {
			t.Fatalf("wc -c said %q", r.Stdout)
		}
	})
	t.Run("file", func(t *testing.T) {
		f, err := os.Open("/etc/hostname")
		if err != nil {
			t.Skip(err)
		}
		defer f.Close()
		want, _ := os.ReadFile("/etc/hostname")
		r := mustRun(t, shCmd("cat"), Options{Stdin: f})
		if !bytes.Equal(r.Stdout, want) {
			t.Fatalf("got %q", r.Stdout)
		}
	})
	t.Run("default is /dev/null", func(t *testing.T) {
		r := mustRun(t, shCmd("wc -c"), Options{})
		if strings.TrimSpace(string(r.Stdout)) != "0" {
			t.Fatalf("stdin was not empty: %q", r.Stdout)
		}
	})
	t.Run("unread stdin does not hang", func(t *testing.T) {
		big := bytes.NewReader(make([]byte, 8<<20))
		r := mustRun(t, shCmd("exit 0"), Options{Stdin: big})
		if r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("exit %v", r.ExitCode)
		}
	})
}

// The environment is exactly Cmd.Env: a canary in the supervisor's own
// environment must not reach the command. The check can fail: the same
// command run with os/exec's default (inherited) environment sees it.
func TestEnvIsExact(t *testing.T) {
	t.Setenv("RINGFENCE_CANARY", "leaked")
	r := mustRun(t, &confine.Cmd{Path: "/usr/bin/env", Args: []string{"env"}, Env: []string{"ONLY=1"}, TreeKill: confine.KillProcessGroup}, Options{})
	if string(r.Stdout) != "ONLY=1\n" {
		t.Fatalf("env was %q, want exactly ONLY=1", r.Stdout)
	}
	r = mustRun(t, &confine.Cmd{Path: "/usr/bin/env", Args: []string{"env"}, TreeKill: confine.KillProcessGroup}, Options{})
	if len(r.Stdout) != 0 {
		t.Fatalf("nil Env leaked %q", r.Stdout)
	}
	if out, _ := exec.Command("/usr/bin/env").Output(); !strings.Contains(string(out), "RINGFENCE_CANARY=leaked") {
		t.Fatalf("control failed: the canary is not visible to an inheriting child")
	}
}

func TestDirAndExtraFiles(t *testing.T) {
	dir := t.TempDir()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := shCmd("pwd; echo via-fd3 >&3")
	c.Dir, c.ExtraFiles = dir, []*os.File{w}
	res := mustRun(t, c, Options{})
	if got := strings.TrimSpace(string(res.Stdout)); got != dir {
		t.Errorf("pwd %q, want %q", got, dir)
	}
	buf := make([]byte, 64)
	n, _ := r.Read(buf)
	if string(buf[:n]) != "via-fd3\n" {
		t.Errorf("fd 3 carried %q", buf[:n])
	}
}

func TestStartFailureIsAnError(t *testing.T) {
	c := shCmd("")
	c.Path = "/nonexistent/secret-command-name"
	cleaned := false
	c.Cleanup = func() { cleaned = true }
	_, err := Run(context.Background(), c, Options{})
	var se *StartError
	if !errors.As(err, &se) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v, want a StartError wrapping ErrNotExist", err)
	}
	if strings.Contains(err.Error(), "secret-command-name") {
		t.Errorf("the error names the command: %v", err)
	}
	if !cleaned {
		t.Errorf("Cleanup was not called")
	}
}

func TestSetupFailureKillsAndErrors(t *testing.T) {
	c := shCmd("sleep 1000")
	var pid int
	c.Setup = func(p int) error { pid = p; return errors.New("spec write failed") }
	_, err := Run(context.Background(), c, Options{})
	if err == nil || !strings.Contains(err.Error(), "spec write failed") {
		t.Fatalf("err %v", err)
	}
	if alive(pid) {
		t.Fatalf("the runner %d survived a failed Setup", pid)
	}
}

func TestLivePassThrough(t *testing.T) {
	var live bytes.Buffer
	r := mustRun(t, shCmd("seq 1 5000"), Options{Stdout: &live, MaxStdout: 100, KeepRunningPastCeiling: true})
	if live.Len() != len(seqOut(5000)) {
		t.Errorf("live got %d bytes, want all %d", live.Len(), len(seqOut(5000)))
	}
	if len(r.Stdout) != 100 || r.Truncated == nil || r.Truncated.Stdout != int64(live.Len()) {
		t.Errorf("captured %d, truncated %+v", len(r.Stdout), r.Truncated)
	}
	if r.ExitCode == nil || *r.ExitCode != 0 || r.Breach != outcome.BreachNone {
		t.Errorf("KeepRunningPastCeiling stopped it: %+v", r)
	}
}

func seqOut(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// statusCmd is a runner that reports on a status channel at fd 3, the way
// the linux init does, and then exits with its own code.
func statusCmd(t *testing.T, script string) *confine.Cmd {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := shCmd(script)
	c.ExtraFiles, c.Status = []*os.File{w}, r
	return c
}

// The status channel, not the runner's own exit status, is the truth
// about the command.
func TestStatusChannelIsTheTruth(t *testing.T) {
	r := mustRun(t, statusCmd(t, `echo '{"kind":"started","pid":2}' >&3
echo '{"kind":"exited","exitCode":7}' >&3; exec 3>&-; exit 135`), Options{})
	if r.ExitCode == nil || *r.ExitCode != 7 || !r.Status.Started || r.Status.Exit == nil {
		t.Fatalf("exit %v status %+v", r.ExitCode, r.Status)
	}
	r = mustRun(t, statusCmd(t, `echo '{"kind":"started","pid":2}' >&3
echo '{"kind":"exited","signal":"SIGSEGV"}' >&3; exit 139`), Options{})
	if r.ExitCode != nil || r.Signal != "SIGSEGV" {
		t.Fatalf("exit %v signal %q", r.ExitCode, r.Signal)
	}
	r = mustRun(t, statusCmd(t, `echo '{"kind":"failed","reason":"not-found","stage":"exec"}' >&3; exit 127`), Options{})
	if r.Status.Failure == nil || r.Status.Failure.Reason != status.NotFound || r.Status.Started {
		t.Fatalf("status %+v", r.Status)
	}
	// Silence on the channel is reported as such (the runner died early).
	r = mustRun(t, statusCmd(t, `exec 3>&-; exit 1`), Options{})
	if !r.Status.Silent || r.ExitCode == nil || *r.ExitCode != 1 {
		t.Fatalf("status %+v exit %v", r.Status, r.ExitCode)
	}
}

// Under the reaper a missing program is reported on the status channel
// (the reaper itself started fine), not as a start error.
func TestReaperReportsNotFound(t *testing.T) {
	c := shCmd("")
	c.Path = "/nonexistent/program"
	r := mustRun(t, c, Options{Reaper: true})
	if r.Status.Failure == nil || r.Status.Failure.Reason != status.NotFound {
		t.Fatalf("status %+v", r.Status)
	}
}

// Under the reaper the command's own exit code and signal come through
// its status channel, and stdin, env, fds and output are the command's.
func TestReaperPassesThrough(t *testing.T) {
	t.Setenv("RINGFENCE_CANARY", "leaked")
	fd3 := statusCmd(t, "")
	defer fd3.Status.Close()
	c := shCmd(`cat; env; echo x >&3; exit 9`, "A=1")
	c.ExtraFiles = fd3.ExtraFiles
	r := mustRun(t, c, Options{Reaper: true, Stdin: strings.NewReader("in\n")})
	out := string(r.Stdout)
	if r.ExitCode == nil || *r.ExitCode != 9 || !strings.HasPrefix(out, "in\n") || !strings.Contains(out, "A=1\n") || strings.Contains(out, "CANARY") || strings.Contains(out, reaper.Env) {
		t.Fatalf("exit %v stdout %q stderr %q", r.ExitCode, r.Stdout, r.Stderr)
	}
	if b := make([]byte, 8); func() int { n, _ := fd3.Status.Read(b); return n }() != 2 {
		t.Fatalf("fd 3 did not reach the command")
	}
	r = mustRun(t, shCmd("kill -KILL $$"), Options{Reaper: true})
	if r.ExitCode != nil || r.Signal != "SIGKILL" {
		t.Fatalf("exit %v signal %q", r.ExitCode, r.Signal)
	}
}

// A binary re-executed as the reaper that does not dispatch its entry points
// must not recurse: Run refuses inside it. And the reaper refuses to act
// for anyone but Run.
func TestReaperMisuse(t *testing.T) {
	t.Run("no recursion", func(t *testing.T) {
		t.Setenv(reaper.Env, "1")
		_, err := Run(context.Background(), shCmd("true"), Options{Reaper: true})
		if !errors.Is(err, ErrReaperNotDispatched) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("binary never dispatches", func(t *testing.T) {
		dispatched = func() bool { return false }
		defer func() { dispatched = entry.Dispatching }()
		_, err := Run(context.Background(), shCmd("true"), Options{Reaper: true})
		if _, _, carried := initimage.Identity(); carried {
			// RINGFENCE_INIT=embedded: the reaper is the image's, and the
			// binary need not dispatch.
			if err != nil {
				t.Fatalf("err %v", err)
			}
			return
		}
		if !errors.Is(err, ErrReaperNotDispatched) {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("not started by Run", func(t *testing.T) {
		exe, _ := os.Executable()
		cmd := exec.Command(exe, reaper.Arg, "0", "/bin/true", "true")
		cmd.Env = []string{}
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 125 {
			t.Fatalf("a bare __reap ran: %v", err)
		}
	})
}
