package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
)

// cliMainEnv makes this test binary run as the ringfence CLI (TestMain), so
// a test can signal a real ringfence process.
const cliMainEnv = "RINGFENCE_CLI_TEST_MAIN"

// cliProcess starts this test binary as `ringfence args...` in dir.
func cliProcess(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, args...)
	c.Dir, c.Env = dir, append(os.Environ(), cliMainEnv+"=1")
	return c
}

// modes are the ways a command can be run: each confining backend, and
// danger-full-access (no backend at all).
var modes = append(append([]string{}, backends...), "unconfined")

func modeArgs(t *testing.T, m string) []string {
	if m == "unconfined" {
		return []string{"--mode", "danger-full-access"}
	}
	needBackend(t, m)
	return []string{"--backend", m}
}

// 126 and 127 as a shell gives them, on every backend, in the CLI's exit
// status and the library's ExitCode alike.
func TestExitNotExecutableNotFound(t *testing.T) {
	for _, m := range modes {
		t.Run(m, func(t *testing.T) {
			ws := workspace(t)
			if err := os.WriteFile(filepath.Join(ws, "noexec.sh"), []byte("#!/bin/sh\necho ran\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				argv []string
				want int
			}{
				{[]string{"./noexec.sh"}, 126},
				{[]string{"/etc"}, 126},
				{[]string{"no-such-program-ringfence"}, 127},
				{[]string{"./no-such-file"}, 127},
			} {
				args := append(append(modeArgs(t, m), "--"), tc.argv...)
				code, res := runJSON(t, ws, args...)
				if code != tc.want || res.ExitCode == nil || *res.ExitCode != tc.want || res.Kind != ringfence.KindCommandFailure {
					t.Errorf("%v: exit %d, result %v %v; want %d (narration %s)", tc.argv, code, res.Kind, deref(res.ExitCode), tc.want, res.Narration)
				}
				code, _, _ = cli(t, ws, "", append([]string{"run", "-q"}, args...)...)
				if code != tc.want {
					t.Errorf("%v: live exit %d, want %d", tc.argv, code, tc.want)
				}
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// A timeout sends SIGTERM to the tree first, so a trap runs (the shell's
// foreground sleep gets it too), then SIGKILL after --kill-after. The
// timeout leaves the shell time to set its trap on a loaded host (with
// 300 ms, CI once timed out a shell that had not yet started); a grace
// waited out would take 6.5 s.
func TestTimeoutRunsTrap(t *testing.T) {
	for _, m := range modes {
		t.Run(m, func(t *testing.T) {
			ws := workspace(t)
			args := append(modeArgs(t, m), "--timeout", "1500ms", "--kill-after", "5s", "--", "sh", "-c",
				`trap 'echo term > trapped; exit 3' TERM; sleep 30`)
			begin := time.Now()
			code, res := runJSON(t, ws, args...)
			if code != exitTimedOut || res.Kind != ringfence.KindTimedOut {
				t.Fatalf("exit %d kind %s, want %d timed-out", code, res.Kind, exitTimedOut)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "trapped")); err != nil || string(b) != "term\n" {
				t.Fatalf("the TERM trap did not run: %v %q", err, b)
			}
			if took := time.Since(begin); took > 5*time.Second {
				t.Fatalf("took %v: the grace was waited out though the tree ended on SIGTERM", took)
			}
		})
	}
}

// The control: with --kill-after 0 the tree is SIGKILLed and no trap runs.
func TestTimeoutKillAfterZero(t *testing.T) {
	needBackend(t, "linux")
	ws := workspace(t)
	code, _ := runJSON(t, ws, "--backend", "linux", "--timeout", "300ms", "--kill-after", "0", "--", "sh", "-c",
		`trap 'echo term > trapped' TERM; sleep 30`)
	if code != exitTimedOut {
		t.Fatalf("exit %d, want %d", code, exitTimedOut)
	}
	if _, err := os.Stat(filepath.Join(ws, "trapped")); err == nil {
		t.Fatal("a trap ran although --kill-after 0 asks for SIGKILL at once")
	}
}

// ringfence stopped by SIGTERM stops the tree (politely, then by force) and
// exits 143; one stopped by SIGINT exits 130.
func TestStoppedBySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			needBackend(t, "linux")
			ws := workspace(t)
			// A straggler that ignores TERM keeps touching a file until it is
			// killed; the foreground shell traps TERM and says so.
			script := `(trap '' TERM INT HUP; while :; do date +%s%N > alive; sleep 0.05; done) &
trap 'echo stopped > trapped; exit 0' TERM INT HUP; echo ready > ready; sleep 30`
			// The grace lets the shell run its trap once its sleep died, on a
			// loaded host too (500 ms once was not enough in CI).
			c := cliProcess(t, ws, "run", "--backend", "linux", "--kill-after", "2s", "--", "sh", "-c", script)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, filepath.Join(ws, "ready"))
			if err := c.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := c.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
				t.Fatalf("ringfence ended with %v, want exit %d", err, 128+int(sig))
			}
			if _, err := os.Stat(filepath.Join(ws, "trapped")); err != nil {
				t.Fatalf("the command's trap did not run before the tree was stopped: %v", err)
			}
			before, _ := os.ReadFile(filepath.Join(ws, "alive"))
			time.Sleep(300 * time.Millisecond)
			after, _ := os.ReadFile(filepath.Join(ws, "alive"))
			if string(before) != string(after) {
				t.Fatal("a process of the tree outlived ringfence")
			}
		})
	}
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	for range 200 {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

func TestFlagConflictTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    sandboxFacts
		want string // "" is no conflict
	}{
		{"defaults", sandboxFacts{mode: policy.WorkspaceWrite}, ""},
		{"danger alone", sandboxFacts{mode: policy.DangerFullAccess}, ""},
		{"danger with allow-all", sandboxFacts{mode: policy.DangerFullAccess, networkSet: true, network: policy.NetAllowAll}, ""},
		{"danger with deny", sandboxFacts{mode: policy.DangerFullAccess, networkSet: true, network: policy.NetDeny}, "--network deny cannot be enforced"},
		{"danger with loopback", sandboxFacts{mode: policy.DangerFullAccess, networkSet: true, network: policy.NetLoopback}, "--network loopback cannot be enforced"},
		{"danger with a deny entry", sandboxFacts{mode: policy.DangerFullAccess, restrictions: 1}, "--deny and --read-only cannot be enforced"},
		{"read-only with deny network", sandboxFacts{mode: policy.ReadOnly, networkSet: true}, ""},
		{"negative timeout", sandboxFacts{timeout: -time.Second}, "--timeout"},
		{"negative kill-after", sandboxFacts{killAfter: -time.Second}, "--kill-after"},
		{"negative cpu-time", sandboxFacts{cpuTime: -time.Second}, "--cpu-time"},
		{"negative pids", sandboxFacts{pids: -1}, "--pids"},
	} {
		err := flagConflict(tc.f)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a refusal naming %q", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct {
		http, token, file string
		ok                bool
	}{
		{"", "", "", true},
		{"127.0.0.1:0", "t", "", true},
		{"127.0.0.1:0", "", "f", true},
		{"", "t", "", false},
		{"", "", "f", false},
		{"127.0.0.1:0", "t", "f", false},
	} {
		if err := mcpConflict(tc.http, tc.token, tc.file); (err == nil) != tc.ok {
			t.Errorf("http %q token %q file %q: %v", tc.http, tc.token, tc.file, err)
		}
	}
}

// Conflicting flags are refused with the reason and exit 125, and nothing runs.
func TestFlagConflictsRefused(t *testing.T) {
	ws := workspace(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--mode", "danger-full-access", "--network", "deny", "--", "touch", "ran"}, "cannot be enforced"},
		{[]string{"run", "--mode", "danger-full-access", "--deny", "/etc", "--", "touch", "ran"}, "cannot be enforced"},
		{[]string{"run", "--kill-after", "-1s", "--", "touch", "ran"}, "--kill-after"},
		{[]string{"run", "--timeout", "-1s", "--", "touch", "ran"}, "--timeout"},
		{[]string{"mcp", "--token", "secret"}, "no --http address"},
		{[]string{"mcp", "--http", "127.0.0.1:0", "--token", "a", "--token-file", "b"}, "use one"},
	} {
		code, _, errOut := cli(t, ws, "", tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d stderr %q; want %d naming %q", tc.args, code, errOut, exitUsage, tc.want)
		}
		if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
			t.Fatalf("%v: the command ran although its flags were refused", tc.args)
		}
	}
}

func TestExitCodeOf(t *testing.T) {
	code := func(n int) *int { return &n }
	for _, tc := range []struct {
		name string
		res  ringfence.ExecResult
		sig  syscall.Signal
		want int
	}{
		{"success", ringfence.ExecResult{Kind: ringfence.KindSuccess, ExitCode: code(0)}, 0, 0},
		{"own code", ringfence.ExecResult{Kind: ringfence.KindCommandFailure, ExitCode: code(7)}, 0, 7},
		{"not found", ringfence.ExecResult{Kind: ringfence.KindCommandFailure, ExitCode: code(127)}, 0, 127},
		{"not executable", ringfence.ExecResult{Kind: ringfence.KindCommandFailure, ExitCode: code(126)}, 0, 126},
		{"denied keeps the command's code", ringfence.ExecResult{Kind: ringfence.KindDenied, ExitCode: code(1)}, 0, 1},
		{"killed by a signal", ringfence.ExecResult{Kind: ringfence.KindCommandFailure, Signal: "SIGSEGV"}, 0, 128 + 11},
		{"timed out", ringfence.ExecResult{Kind: ringfence.KindTimedOut}, 0, exitTimedOut},
		{"over budget", ringfence.ExecResult{Kind: ringfence.KindOverBudget}, 0, exitOverBudget},
		{"runner failure", ringfence.ExecResult{Kind: ringfence.KindRunnerFailure}, 0, exitUsage},
		{"aborted", ringfence.ExecResult{Kind: ringfence.KindAborted}, 0, 130},
		{"stopped by SIGTERM", ringfence.ExecResult{Kind: ringfence.KindAborted}, syscall.SIGTERM, 143},
		{"stopped by SIGHUP, command finished", ringfence.ExecResult{Kind: ringfence.KindSuccess, ExitCode: code(0)}, syscall.SIGHUP, 129},
	} {
		if got := exitCodeOf(&tc.res, tc.sig); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestPlanTerminal(t *testing.T) {
	for _, tc := range []struct {
		in, out, errw bool
		ok            bool
		want          ringfence.Terminal
	}{
		{false, false, false, false, ringfence.Terminal{}},
		{false, false, true, false, ringfence.Terminal{}}, // stderr alone: a batch run
		{true, true, true, true, ringfence.Terminal{Stdin: true, Stdout: true, Stderr: true}},
		{true, false, false, true, ringfence.Terminal{Stdin: true}},
		{false, true, false, true, ringfence.Terminal{Stdout: true}},
		{true, true, false, true, ringfence.Terminal{Stdin: true, Stdout: true}},
	} {
		got, ok := planTerminal(tc.in, tc.out, tc.errw)
		if ok != tc.ok || got != tc.want {
			t.Errorf("in %v out %v err %v: %+v %v, want %+v %v", tc.in, tc.out, tc.errw, got, ok, tc.want, tc.ok)
		}
	}
}
