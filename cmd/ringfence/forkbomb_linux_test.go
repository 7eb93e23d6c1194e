package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
)

// flood forks 600 processes (more than policy.DefaultProcesses) that
// outlive the loop. Bounded so that a broken limit cannot take the shared
// machine down; the process limit must stop it long before the end. Each
// sleeps 30 s: on a host where a fork and exec take 7–9 ms (a PVM guest),
// the first children of 3 s sleeps ended before the 512th started, and the
// flood never held more than the limit at once. The run ends them with the
// command (tree kill), so the long sleep costs the test no time.
const flood = `n=0; while [ $n -lt 600 ]; do sleep 30 & n=$((n+1)); done; echo made $n`

// With no flag and no policy file, a command that forks without end ends
// by itself as over-budget, the breach named — not by exhausting the
// machine. The control raises the limit (--pids) and the same flood runs
// to the end, so the 600 processes are more than the default allows.
func TestForkBombEndsOverBudgetByDefault(t *testing.T) {
	for _, backend := range []string{"linux", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			needBackend(t, backend)
			ws := workspace(t)
			code, res := runJSON(t, ws, "--backend", backend, "--pids", "100000", "--", "sh", "-c", flood)
			if code != 0 || !strings.Contains(res.Stdout, "made 600") {
				t.Fatalf("control: exit %d, kind %s, stdout %q: the flood did not run to the end", code, res.Kind, res.Stdout)
			}
			begin := time.Now()
			code, res = runJSON(t, ws, "--backend", backend, "--", "sh", "-c", flood)
			if code != exitOverBudget || res.Kind != ringfence.KindOverBudget || res.Breach != "processes" {
				t.Fatalf("exit %d, kind %s, breach %q, stdout %q", code, res.Kind, res.Breach, res.Stdout)
			}
			t.Logf("stopped as over-budget (processes) after %v", time.Since(begin).Round(time.Millisecond))
		})
	}
}

// A policy file that names no process limit keeps the default one.
func TestForkBombBoundedUnderPolicyFileWithoutLimit(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	file := filepath.Join(t.TempDir(), "policy.toml")
	if err := os.WriteFile(file, []byte("mode = \"workspace-write\"\n[limits]\nwall_clock = \"1m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, res := runJSON(t, ws, "--policy", file, "--", "sh", "-c", flood)
	if code != exitOverBudget || res.Kind != ringfence.KindOverBudget || res.Breach != "processes" {
		t.Fatalf("exit %d, kind %s, breach %q, stdout %q", code, res.Kind, res.Breach, res.Stdout)
	}
}
