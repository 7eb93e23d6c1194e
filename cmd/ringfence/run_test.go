package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
)

var backends = []string{"linux", "bwrap", "landlock"}

// The README's main job, on every backend: the workspace write lands, the
// write outside is refused and said so, and the exit status is the command's.
func TestRunMainJob(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			ws := workspace(t)
			outside := filepath.Join(outsideDir(t), "outside.txt")
			code, res := runJSON(t, ws, "--backend", b, "--", "sh", "-c",
				"echo hello > out.txt && cat out.txt && echo x > "+outside)
			if got, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(got) != "hello\n" {
				t.Errorf("workspace write: out.txt = %q", got)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Fatalf("a write outside the workspace landed on the host")
			}
			if res.Kind != ringfence.KindDenied || res.Stdout != "hello\n" || code == 0 {
				t.Errorf("kind %q stdout %q code %d; want denied, hello, nonzero", res.Kind, res.Stdout, code)
			}
			if res.Backend != b || res.Narration == "" || len(res.Violations) == 0 {
				t.Errorf("backend %q narration %q violations %v", res.Backend, res.Narration, res.Violations)
			}
		})
	}
}

// The same command unconfined does write outside: the test above can fail.
func TestRunUnconfinedWritesOutside(t *testing.T) {
	ws := workspace(t)
	outside := filepath.Join(outsideDir(t), "outside.txt")
	_, res := runJSON(t, ws, "--mode", "danger-full-access", "--", "sh", "-c", "echo x > "+outside)
	if _, err := os.Stat(outside); err != nil || res.Kind != ringfence.KindSuccess || res.Backend != "none" {
		t.Fatalf("danger-full-access: kind %q backend %q, outside written: %v", res.Kind, res.Backend, err == nil)
	}
}

func TestRunExitCodes(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	for _, tc := range []struct {
		name string
		args []string
		want int
		kind ringfence.Kind
	}{
		{"passthrough", []string{"--", "sh", "-c", "exit 7"}, 7, "command-failure"},
		{"success", []string{"--", "true"}, 0, "success"},
		{"not-found", []string{"--", "no-such-program-ringfence"}, exitNotFound, "command-failure"},
		{"timeout", []string{"--timeout", "300ms", "--", "sleep", "30"}, exitTimedOut, "timed-out"},
		{"signal", []string{"--", "sh", "-c", "kill -TERM $$"}, 128 + 15, "command-failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, res := runJSON(t, ws, tc.args...)
			if code != tc.want || res.Kind != tc.kind {
				t.Errorf("exit %d kind %q; want %d %q (narration: %s)", code, res.Kind, tc.want, tc.kind, res.Narration)
			}
		})
	}
}

func TestRunRefusals(t *testing.T) {
	ws := workspace(t)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"bad mode", []string{"run", "--mode", "yolo", "--", "true"}, exitUsage},
		{"bad network", []string{"run", "--network", "some", "--", "true"}, exitUsage},
		{"unset env", []string{"run", "--env", "RINGFENCE_SURELY_UNSET_VAR", "--", "true"}, exitUsage},
		{"unknown backend", []string{"run", "--backend", "vm", "--", "true"}, exitPolicy},
		{"no command", []string{"run"}, exitUsage},
		{"bad memory", []string{"run", "--memory", "lots", "--", "true"}, exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := cli(t, ws, "", tc.args...)
			if code != tc.want || !strings.Contains(errOut, "ringfence:") {
				t.Errorf("exit %d (want %d), stderr %q", code, tc.want, errOut)
			}
		})
	}
}

// A simulated host without user namespaces: the linux backend, asked for by
// name, refuses (exit 120) and nothing runs — never a silent fallback.
func TestRunFailsClosed(t *testing.T) {
	t.Setenv("RINGFENCE_SIMULATE_NO_USERNS", "test")
	ws := workspace(t)
	code, _, errOut := cli(t, ws, "", "run", "--backend", "linux", "--", "sh", "-c", "touch ran")
	if code != exitUnavailable || !strings.Contains(errOut, "linux") {
		t.Fatalf("exit %d, stderr %q; want %d naming the backend", code, errOut, exitUnavailable)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Fatal("the command ran although no backend could confine it")
	}
}

// The environment is an allow-list: ringfence's own variables stay out
// unless named with --env.
func TestRunEnvironment(t *testing.T) {
	needBackend(t, "auto")
	t.Setenv("RINGFENCE_TEST_CANARY", "secret-canary")
	ws := workspace(t)
	_, res := runJSON(t, ws, "--env", "GIVEN=yes", "--", "env")
	if strings.Contains(res.Stdout, "secret-canary") || !strings.Contains(res.Stdout, "GIVEN=yes") {
		t.Fatalf("env inside: %q", res.Stdout)
	}
	_, res = runJSON(t, ws, "--env", "RINGFENCE_TEST_CANARY", "--", "env")
	if !strings.Contains(res.Stdout, "RINGFENCE_TEST_CANARY=secret-canary") {
		t.Fatalf("--env NAME did not copy the variable: %q", res.Stdout)
	}
}

func TestRunStdinAndCwd(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, sub, "from stdin", "run", "--root", ws, "--", "sh", "-c", "cat; echo; pwd")
	if code != 0 || !strings.Contains(out, "from stdin") || !strings.HasSuffix(strings.TrimSpace(out), "/sub") {
		t.Fatalf("exit %d output %q", code, out)
	}
}

// outsideDir is a host directory outside the workspace and outside /tmp
// (which the sandbox replaces with a private one): a write that lands there
// really reached the host.
func outsideDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Output streamed live reaches the person whole, so a command that prints
// past the capture ceiling keeps running; captured for --json it is
// stopped there and reported over-budget.
func TestRunOutputCeiling(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	code, out, _ := cli(t, ws, "", "run", "-q", "--", "head", "-c", "3000000", "/dev/zero")
	if code != 0 || len(out) != 3000000 {
		t.Fatalf("live: exit %d, %d bytes; want 0 and all 3000000", code, len(out))
	}
	code, res := runJSON(t, ws, "--", "head", "-c", "3000000", "/dev/zero")
	if code != exitOverBudget || res.Kind != ringfence.KindOverBudget || res.Truncated == nil || res.Breach != "output" {
		t.Fatalf("--json: exit %d kind %q truncated %+v breach %q", code, res.Kind, res.Truncated, res.Breach)
	}
}
