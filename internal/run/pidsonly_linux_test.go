//go:build linux

package run

import (
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/policy"
)

// A run bounded only in processes (the CLI's default) is placed in a pids
// group and in no memory or cpuacct group, whose creation and removal cost
// milliseconds per run (v1Controllers); the bound itself still holds
// (TestForkBomb, and cmd/ringfence's TestForkBombEndsOverBudgetByDefault
// with its control). The control: a memory limit does put the command in a
// memory group, so the check can tell the two apart.
func TestProcessesOnlyRunMakesOnlyAPidsGroup(t *testing.T) {
	needQuota(t)
	groups := func(l policy.Limits) map[string]bool {
		t.Helper()
		r := mustRun(t, shCmd("cat /proc/self/cgroup"), Options{Timeout: 30 * time.Second, Limits: l})
		if r.Resources != ResourcesQuota {
			t.Fatalf("resources %q, want quota", r.Resources)
		}
		in := map[string]bool{}
		for _, ctrl := range []string{"pids", "memory", "cpuacct"} {
			own, _ := ownCgroup(string(r.Stdout), ctrl)
			in[ctrl] = strings.Contains(own, "/ringfence-")
		}
		return in
	}
	if in := groups(policy.Limits{Processes: 512}); !in["pids"] || in["memory"] || in["cpuacct"] {
		t.Fatalf("processes-only run placed in %v, want only pids", in)
	}
	if in := groups(policy.Limits{Processes: 512, MemoryBytes: 256 << 20}); !in["pids"] || !in["memory"] {
		t.Fatalf("control: a memory-limited run placed in %v, want pids and memory", in)
	}
}
