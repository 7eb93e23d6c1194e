package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// confining are the backends that run commands under a supervisor.
var confining = []string{"linux", "landlock", "bwrap"}

// TestFaultSupervisorKilled: SIGKILL of the supervisor mid-command leaves
// no survivor — not the command, not its background sleeper, not its
// setsid'd daemon, not the init or reaper. Judged by pid and start time.
func TestFaultSupervisorKilled(t *testing.T) {
	for _, b := range confining {
		t.Run(b, func(t *testing.T) {
			testenv.Need(t, "backend "+b, conformance.LocalAvailable(b))
			root := t.TempDir()
			os.Mkdir(filepath.Join(root, "work"), 0o755)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"=supervise", "RF_ROOT="+root, "RF_BACKEND="+b)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFile(filepath.Join(root, "work", "up.txt"), 20*time.Second) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the command never started")
			}
			tree := withStart(descendantsOf(cmd.Process.Pid))
			// The sleepers and the shell at least: the census can see the tree.
			if len(tree) < 3 {
				t.Fatalf("found only %d processes below the supervisor", len(tree))
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			var left []string
			for range 50 {
				if left = survivors(tree); len(left) == 0 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Errorf("survivors of a SIGKILLed supervisor: %v", left)
				killSurvivors(tree)
				return
			}
			t.Logf("%s: %d processes below the supervisor, none survived its SIGKILL", b, len(tree))
		})
	}
}

// TestFaultDiskFull: write_file on a full disk fails with io-failure and
// leaves the old file and no temp file.
func TestFaultDiskFull(t *testing.T) {
	testenv.NeedRoot(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=fulldisk")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, stderrOf(err))
	}
	var rep struct {
		FillErr, WriteErr, ToolKind, Keep string
		Entries                           []string
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	if rep.FillErr != "ENOSPC" {
		t.Fatalf("the disk never filled: %s", rep.FillErr)
	}
	if rep.WriteErr == "" {
		t.Error("WriteFile on a full disk reported no error")
	}
	if rep.ToolKind != string(outcome.IOFailure) {
		t.Errorf("write_file on a full disk: outcome %q, want %q", rep.ToolKind, outcome.IOFailure)
	}
	if rep.Keep != "original" {
		t.Errorf("the old file holds %d bytes, want its original content", len(rep.Keep))
	}
	if extra := minus(rep.Entries, []string{"filler", "keep.txt"}); len(extra) > 0 {
		t.Errorf("left in the workspace: %v", extra)
	}
	t.Logf("full disk: WriteFile error %q; write_file outcome %s; old file intact", rep.WriteErr, rep.ToolKind)
}

// TestFaultWorkspaceDeleted: the workspace vanishes while a command runs;
// the command, and every later call, end in a clear failure, and nothing
// recreates the workspace.
func TestFaultWorkspaceDeleted(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *ringfence.Local, root string) {
		ctx := context.Background()
		// In a directory of the workspace: some backends cannot create
		// files directly in the root (see files/round-trip).
		if err := os.Mkdir(filepath.Join(root, "work"), 0o755); err != nil {
			t.Fatal(err)
		}
		done := make(chan *ringfence.ExecResult, 1)
		go func() {
			res, err := l.Exec(ctx, []string{"sh", "-c", "echo started > started.txt; sleep 0.5; echo after > after.txt"}, ringfence.ExecOptions{Dir: "work"})
			if err != nil {
				t.Errorf("exec: %v", err)
			}
			done <- res
		}()
		if !waitFile(filepath.Join(root, "work", "started.txt"), 20*time.Second) {
			t.Fatal("the command never started")
		}
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		if res := <-done; res != nil && (res.Kind == "success" || res.ExitCode == nil || *res.ExitCode == 0) {
			t.Errorf("a command whose workspace vanished: kind %s, exit %v", res.Kind, res.ExitCode)
		}
		res, err := l.Exec(ctx, []string{"sh", "-c", "echo x > x.txt"}, ringfence.ExecOptions{})
		if err == nil && res.Kind == "success" {
			t.Error("exec in a deleted workspace succeeded")
		}
		if _, err := l.ReadFile(ctx, "work/started.txt", 1<<10); err == nil {
			t.Error("read_file in a deleted workspace succeeded")
		}
		if err := l.WriteFile(ctx, "work/new.txt", []byte("x")); err == nil {
			t.Error("write_file in a deleted workspace succeeded")
		}
		if _, err := os.Lstat(root); err == nil {
			t.Error("the deleted workspace was recreated")
		}
	})
}

// TestFaultStdoutClosedEarly: a command that closes its stdout, and one
// whose reader quits early (SIGPIPE), end normally with their own status.
func TestFaultStdoutClosedEarly(t *testing.T) {
	forEachBackend(t, func(t *testing.T, l *ringfence.Local, _ string) {
		ctx := context.Background()
		res, err := l.Exec(ctx, []string{"sh", "-c", "exec 1>&-; echo lost 2>/dev/null; sleep 0.2; echo still-here >&2; exit 3"}, ringfence.ExecOptions{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.TimedOut || res.ExitCode == nil || *res.ExitCode != 3 || res.Stdout != "" || res.Stderr != "still-here\n" {
			t.Errorf("closed stdout: kind %s, exit %v, timed out %v, stdout %q, stderr %q", res.Kind, res.ExitCode, res.TimedOut, res.Stdout, res.Stderr)
		}
		res, err = l.Exec(ctx, []string{"sh", "-c", "yes | head -n 2"}, ringfence.ExecOptions{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode == nil || *res.ExitCode != 0 || res.Stdout != "y\ny\n" {
			t.Errorf("early reader exit: kind %s, exit %v, stdout %q", res.Kind, res.ExitCode, res.Stdout)
		}
	})
}

// TestFaultNamespaceRefused: with user namespaces refused (simulated), the
// linux backend refuses with policy.ErrUnavailable and runs nothing;
// "auto" falls to a weaker backend and says so. Without the simulation
// the same command runs, so the test tells the two apart.
func TestFaultNamespaceRefused(t *testing.T) {
	testenv.Need(t, "backend linux", conformance.LocalAvailable("linux"))
	ctx := context.Background()
	argv := []string{"sh", "-c", "echo ran > ran.txt"}
	t.Setenv("RINGFENCE_SIMULATE_NO_USERNS", "conformance fault test")
	root := t.TempDir()
	l, err := ringfence.New(conformance.LocalConfig(root, "linux"))
	if err == nil {
		defer l.Close()
		var res *ringfence.ExecResult
		res, err = l.Exec(ctx, argv, ringfence.ExecOptions{})
		if res != nil {
			t.Errorf("linux without user namespaces returned a result (kind %s)", res.Kind)
		}
	}
	if !errors.Is(err, policy.ErrUnavailable) {
		t.Errorf("linux without user namespaces: %v, want an error wrapping policy.ErrUnavailable", err)
	}
	refusal := err
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Error("the command ran although the backend is unavailable")
	}
	auto, err := ringfence.New(conformance.LocalConfig(t.TempDir(), "auto"))
	if err != nil {
		t.Fatal(err)
	}
	defer auto.Close()
	res, err := auto.Exec(ctx, []string{"true"}, ringfence.ExecOptions{})
	switch {
	case err != nil:
		t.Logf(`"auto" refused too: %v`, err) // no weaker backend here: also fail-closed
	case res.Backend == "linux":
		t.Error(`"auto" chose linux although user namespaces are refused`)
	}
	os.Unsetenv("RINGFENCE_SIMULATE_NO_USERNS")
	control, err := ringfence.New(conformance.LocalConfig(root, "linux"))
	if err != nil {
		t.Fatal(err)
	}
	defer control.Close()
	if res, err := control.Exec(ctx, argv, ringfence.ExecOptions{}); err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("control run without the simulation: %v %+v", err, res)
	}
	if res != nil {
		t.Logf("simulated refusal: linux refused (%v); auto fell back to %q (enforcement %+v)", refusal, res.Backend, res.Enforcement.Files)
	}
}

func forEachBackend(t *testing.T, f func(t *testing.T, l *ringfence.Local, root string)) {
	for _, b := range confining {
		t.Run(b, func(t *testing.T) {
			testenv.Need(t, "backend "+b, conformance.LocalAvailable(b))
			root := t.TempDir()
			l, err := ringfence.New(conformance.LocalConfig(root, b))
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			f(t, l, root)
		})
	}
}

func waitFile(path string, limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}

// withStart pairs each pid with its start time, so a reused pid is not
// mistaken for a survivor.
func withStart(pids []int) map[int]string {
	out := map[int]string{}
	for _, p := range pids {
		out[p] = startTime(p)
	}
	return out
}

func survivors(tree map[int]string) []string {
	var out []string
	for p, st := range tree {
		if st != "" && startTime(p) == st && !zombie(p) {
			out = append(out, fmt.Sprintf("%d (%s)", p, comm(p)))
		}
	}
	slices.Sort(out)
	return out
}

// killSurvivors ends what a failed run left: only the pids this test's own
// helper started, and only while their start time still matches.
func killSurvivors(tree map[int]string) {
	for p, st := range tree {
		if st != "" && startTime(p) == st {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22, starttime
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
