//go:build linux

package run

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// needQuota skips (or fails under RINGFENCE_REQUIRE_ALL) without a usable
// cgroup.
func needQuota(t *testing.T) {
	t.Helper()
	caps := Probe()
	var err error
	if caps.Resources != ResourcesQuota {
		err = os.ErrNotExist
	}
	testenv.Need(t, "a writable cgroup with memory and pids controllers", err)
}

// modes runs a test under quota (cgroups) and under monitor (no cgroup
// root, so sampling only).
func modes(t *testing.T, f func(t *testing.T, o Options, want Resources)) {
	t.Run("quota", func(t *testing.T) { needQuota(t); f(t, Options{}, ResourcesQuota) })
	t.Run("monitor", func(t *testing.T) { f(t, Options{CgroupRoot: t.TempDir()}, ResourcesMonitor) })
}

// balloonCmd re-executes the test binary as a helper that touches mib MiB
// of memory, 8 MiB at a time.
func balloonCmd(t *testing.T, mib int) *confine.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &confine.Cmd{Path: exe, Args: []string{exe}, Env: []string{"RF_RUN_HELPER=balloon", "RF_RUN_MIB=" + strconv.Itoa(mib)}, TreeKill: confine.KillProcessGroup}
}

// A memory balloon under a 64 MiB limit ends as a memory breach. The
// check can fail: without the limit the same balloon runs to completion
// (a 192 MiB balloon, three times the limit).
func TestMemoryBalloon(t *testing.T) {
	modes(t, func(t *testing.T, o Options, want Resources) {
		o.Timeout = 30 * time.Second
		o.Limits = policy.Limits{MemoryBytes: 64 << 20}
		r := mustRun(t, balloonCmd(t, 1024), o)
		if r.Breach != outcome.BreachMemory || r.ExitCode != nil || r.Resources != want {
			t.Fatalf("breach %q exit %v resources %q stderr %q", r.Breach, r.ExitCode, r.Resources, r.Stderr)
		}
		if r.Usage.PeakMemoryBytes < 32<<20 {
			t.Errorf("peak memory %d: the balloon was not observed", r.Usage.PeakMemoryBytes)
		}
	})
	t.Run("control", func(t *testing.T) {
		r := mustRun(t, balloonCmd(t, 192), Options{Timeout: 30 * time.Second})
		if r.ExitCode == nil || *r.ExitCode != 0 || strings.TrimSpace(string(r.Stdout)) != "24" {
			t.Fatalf("unlimited balloon: exit %v stdout %q", r.ExitCode, r.Stdout)
		}
	})
}

// A fork bomb under Processes: 64 ends as a processes breach, the host
// stays responsive, and nothing of the bomb is left.
func TestForkBomb(t *testing.T) {
	needQuota(t)
	dir := t.TempDir()
	script := `read p _ < /proc/self/stat; echo $p > "$D/top"; echo $p > "$D/child"; echo $p > "$D/daemon"
b() { b & b & wait; }; b`
	o := Options{Timeout: 30 * time.Second, Limits: policy.Limits{Processes: 64}}
	r := mustRun(t, shCmd(script, "D="+dir), o)
	pids := readPids(t, dir)
	defer killPids(pids)
	// The bomb's top shell may end on its own once its forks are refused,
	// before the supervisor stops the tree, so the exit code may be set; the
	// breach is recorded either way, and it is what makes the outcome
	// over-budget (outcome.ClassifyExec orders the supervisor's facts first).
	if r.Breach != outcome.BreachProcesses || r.Resources != ResourcesQuota {
		t.Fatalf("breach %q exit %v resources %q", r.Breach, r.ExitCode, r.Resources)
	}
	if r.Usage.PeakProcesses > 64 {
		t.Errorf("peak %d processes under a limit of 64", r.Usage.PeakProcesses)
	}
	if left := survivors(pids); len(left) > 0 {
		t.Fatalf("survived: %v", left)
	}
	// The host still forks.
	if r := mustRun(t, shCmd("echo ok"), Options{}); string(r.Stdout) != "ok\n" {
		t.Fatalf("host not responsive after the bomb: %q", r.Stdout)
	}
}

// Monitor mode counts the tree by sampling (a bounded spawn, not a bomb:
// sampling cannot prevent the spike between samples, see doc.go).
func TestProcessesMonitor(t *testing.T) {
	o := Options{Timeout: 30 * time.Second, CgroupRoot: t.TempDir(), Limits: policy.Limits{Processes: 16}}
	r := mustRun(t, shCmd("for i in $(seq 40); do sleep 100 & done; wait"), o)
	if r.Breach != outcome.BreachProcesses || r.ExitCode != nil || r.Resources != ResourcesMonitor {
		t.Fatalf("breach %q exit %v resources %q", r.Breach, r.ExitCode, r.Resources)
	}
	if r.Usage.PeakProcesses <= 16 {
		t.Errorf("peak %d: the breach was not observed", r.Usage.PeakProcesses)
	}
}

func TestCPUTime(t *testing.T) {
	modes(t, func(t *testing.T, o Options, want Resources) {
		o.Timeout = 30 * time.Second
		o.Limits = policy.Limits{CPUTime: 300 * time.Millisecond}
		r := mustRun(t, shCmd("while :; do :; done"), o)
		if r.Breach != outcome.BreachCPU || r.ExitCode != nil || r.Resources != want || r.TimedOut {
			t.Fatalf("breach %q exit %v resources %q timedOut %v", r.Breach, r.ExitCode, r.Resources, r.TimedOut)
		}
		if r.Usage.CPUMs < 300 {
			t.Errorf("cpu %d ms reported for a breach of 300 ms", r.Usage.CPUMs)
		}
	})
}

// Within limits nothing is breached and the usage is reported.
func TestWithinLimits(t *testing.T) {
	modes(t, func(t *testing.T, o Options, want Resources) {
		o.Limits = policy.Limits{MemoryBytes: 256 << 20, Processes: 32, CPUTime: 10 * time.Second}
		r := mustRun(t, shCmd("sleep 0.2; echo done"), o)
		if r.Breach != outcome.BreachNone || r.ExitCode == nil || *r.ExitCode != 0 || r.Resources != want {
			t.Fatalf("breach %q exit %v resources %q", r.Breach, r.ExitCode, r.Resources)
		}
		if r.Usage.PeakProcesses < 1 {
			t.Errorf("usage not observed: %+v", r.Usage)
		}
	})
}

// The supervisor's forking thread visits the cgroup and must come back:
// after a run every thread of this process is in its original groups, and
// no group is left behind.
func TestCgroupsLeftClean(t *testing.T) {
	needQuota(t)
	before := threadCgroups(t)
	// Judge only this run's groups: an earlier test's straggler is that
	// test's to answer for.
	existing := map[string]bool{}
	for _, g := range ownGroups() {
		existing[g] = true
	}
	mustRun(t, shCmd("true"), Options{Limits: policy.Limits{Processes: 8, MemoryBytes: 64 << 20}})
	if after := threadCgroups(t); after != before {
		t.Fatalf("thread cgroups changed:\n%s\n---\n%s", before, after)
	}
	var left []string
	for _, g := range ownGroups() {
		if !existing[g] {
			left = append(left, g)
		}
	}
	if len(left) > 0 {
		t.Fatalf("groups left behind: %v", left)
	}
}

// ownGroups lists the run groups this test process has made, in every
// hierarchy.
func ownGroups() []string {
	self, _ := os.ReadFile("/proc/self/cgroup")
	var out []string
	for _, ctrl := range []string{"memory", "pids", "cpuacct"} {
		own, _ := ownCgroup(string(self), ctrl)
		m, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", ctrl, own, "ringfence-"+strconv.Itoa(os.Getpid())+"-*"))
		out = append(out, m...)
	}
	return out
}

func threadCgroups(t *testing.T) string {
	t.Helper()
	files, _ := filepath.Glob("/proc/self/task/*/cgroup")
	set := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			set[string(b)] = true
		}
	}
	var out []string
	for k := range set {
		out = append(out, k)
	}
	return strings.Join(out, "|")
}

// Probe reports this host's offer and leaves nothing behind; where quota
// is available the v1 or delegated v2 controllers it relies on are named.
func TestProbe(t *testing.T) {
	c := Probe()
	if c.Resources == ResourcesQuota && !c.V2Delegated && !slices.Contains(c.V1Controllers, "memory") {
		t.Fatalf("quota without a memory controller: %+v", c)
	}
	if c.Resources != ResourcesQuota && c.Reason == "" {
		t.Fatalf("no quota and no reason: %+v", c)
	}
	needQuota(t)
	t.Logf("%+v", c)
}
