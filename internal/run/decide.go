package run

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// This file holds the decisions: pure functions over values, table-tested
// and fuzzed without a kernel. The _linux.go files apply them.

// cause is why the supervisor stopped the tree; the first one wins.
type cause struct {
	timedOut bool
	aborted  bool
	breach   outcome.Breach
}

func (c cause) stopped() bool { return c.timedOut || c.aborted || c.breach != outcome.BreachNone }

// ctxCause is why a cancelled context stopped the tree: a deadline is a
// timeout like any other, anything else an abort.
func ctxCause(err error) cause {
	if errors.Is(err, context.DeadlineExceeded) {
		return cause{timedOut: true}
	}
	return cause{aborted: true}
}

// treeProc is one process of the tree as the gentle stop sees it: its pid
// and the identity of its executable (ok false when it could not be read).
type treeProc struct {
	pid int
	exe fileID
	ok  bool
}

// fileID identifies a file by device and inode, whatever path names it
// (a runner binary bind-mounted into a sandbox is the same file).
type fileID struct{ dev, ino uint64 }

// gentleTargets decides who gets the polite SIGTERM: every process of the
// command's tree, and none of the runners confining it. A runner root
// (the linux init, bwrap, the reaper) forwards or ignores SIGTERM, and
// some would end the tree at once on it; runners below it (bwrap's own
// pid 1, the exec shim) are recognised by running the root's binary or one
// of ours (this one, or the carried image: runners). A process whose
// binary could not be read is left to the SIGKILL that follows, never
// guessed to be the command. A plain root is the command itself and is
// signalled with all of its tree.
func gentleTargets(root treeProc, tree []treeProc, rootIsRunner bool, runners []fileID) []int {
	if !rootIsRunner {
		out := []int{root.pid}
		for _, p := range tree {
			out = append(out, p.pid)
		}
		return out
	}
	var out []int
	for _, p := range tree {
		if !p.ok || slices.Contains(runners, p.exe) || (root.ok && p.exe == root.exe) {
			continue
		}
		out = append(out, p.pid)
	}
	return out
}

// ceilings returns the capture bound per stream.
func ceilings(o *Options) (stdout, stderr int64) {
	stdout, stderr = o.MaxStdout, o.MaxStderr
	if stdout <= 0 {
		stdout = DefaultMaxOutput
	}
	if stderr <= 0 {
		stderr = DefaultMaxOutput
	}
	return stdout, stderr
}

// deadline returns the earliest of Timeout and Limits.WallClock and the
// cause to record when it fires (zero: no deadline). At equal durations the
// wall-clock limit is named, since it is the stricter statement.
func deadline(o *Options) (time.Duration, cause) {
	t, w := o.Timeout, o.Limits.WallClock
	switch {
	case w > 0 && (t <= 0 || w <= t):
		return w, cause{timedOut: true, breach: outcome.BreachWallClock}
	case t > 0:
		return t, cause{timedOut: true}
	}
	return 0, cause{}
}

// hasLimits reports whether any limit needs the tree to be watched.
func hasLimits(l policy.Limits) bool {
	return l.MemoryBytes > 0 || l.Processes > 0 || l.CPUTime > 0
}

// sample is one observation of the tree.
type sample struct {
	MemoryBytes int64         // resident memory now (monitor) or charged (quota)
	PeakMemory  int64         // highest charge the kernel recorded (quota), else 0
	Processes   int           // processes in the tree now
	CPU         time.Duration // accumulated CPU time
	OOMKills    int64         // quota: processes the kernel OOM-killed in the group
	ForkRefused int64         // quota: forks refused at pids.max
}

// breachOf decides the first limit a sample exceeds, in the order a
// runaway usually announces itself: memory, processes, then CPU. Under a
// quota the kernel refuses the excess, so the breach is the kernel's
// record of a refusal (an OOM kill, a refused fork); hitting the process
// limit even once ends the tree as over budget, because a tree that keeps
// forking into EAGAIN is a fork bomb being held, not a command finishing.
// Under monitoring the breach is the sampled value past the limit.
func breachOf(s sample, l policy.Limits, quota bool) outcome.Breach {
	switch {
	case l.MemoryBytes > 0 && quota && s.OOMKills > 0:
		return outcome.BreachMemory
	case l.MemoryBytes > 0 && !quota && s.MemoryBytes > l.MemoryBytes:
		return outcome.BreachMemory
	case l.Processes > 0 && quota && s.ForkRefused > 0:
		return outcome.BreachProcesses
	case l.Processes > 0 && !quota && s.Processes > l.Processes:
		return outcome.BreachProcesses
	case l.CPUTime > 0 && s.CPU > l.CPUTime:
		return outcome.BreachCPU
	}
	return outcome.BreachNone
}

// addUsage folds a sample into the running peaks.
func addUsage(u *outcome.Usage, s sample) {
	u.PeakMemoryBytes = max(u.PeakMemoryBytes, s.MemoryBytes, s.PeakMemory)
	u.PeakProcesses = max(u.PeakProcesses, s.Processes)
	u.CPUMs = max(u.CPUMs, s.CPU.Milliseconds())
}

// exitFacts decides ExitCode and Signal. A stopped command has no exit
// code. When a status channel reported an Exited event, that is the truth
// about the command itself (the runner's own exit status is 128+n);
// otherwise the wait status of the process is.
func exitFacts(c cause, sum *status.Summary, code int, signal string) (*int, string) {
	if sum != nil && sum.Exit != nil {
		code, signal = -1, sum.Exit.Signal
		if sum.Exit.ExitCode != nil {
			code = *sum.Exit.ExitCode
		}
	}
	if c.stopped() || code < 0 {
		return nil, signal
	}
	return &code, signal
}

// procStat is what the supervisor reads from /proc/<pid>/stat.
type procStat struct {
	ppid     int
	rssPages int64
	ticks    int64 // utime+stime+cutime+cstime, in clock ticks
}

// parseStat parses /proc/<pid>/stat. The command name (field 2) may hold
// spaces and parentheses, so fields are counted from the last ')'.
func parseStat(s string) (procStat, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 22 {
		return procStat{}, false
	}
	num := func(n int) int64 { v, _ := strconv.ParseInt(f[n-3], 10, 64); return v }
	return procStat{
		ppid:     int(num(4)),
		rssPages: num(24),
		ticks:    num(14) + num(15) + num(16) + num(17),
	}, true
}

// keyed returns the value of "key N" in a flat-keyed cgroup file
// (memory.oom_control, memory.events, pids.events, cpu.stat), or 0.
func keyed(content, key string) int64 {
	for line := range strings.SplitSeq(content, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// ownCgroup returns this process's path in the hierarchy holding
// controller (v1: "memory", "pids", …; "" asks for the v2 "0::" line),
// parsed from /proc/self/cgroup.
func ownCgroup(content, controller string) (string, bool) {
	for line := range strings.SplitSeq(content, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		for c := range strings.SplitSeq(parts[1], ",") {
			if controller != "" && c == controller {
				return parts[2], true
			}
		}
	}
	return "", false
}

// safeCgroupPath refuses a cgroup path that would climb out of the mount.
func safeCgroupPath(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.Contains(p, "..") && !strings.ContainsRune(p, 0)
}

// v1Controllers decides which v1 hierarchies a run's group spans, and
// which of them must exist. The pids controller is always needed: it holds
// the process bound (pids.max, an exact count of the group's tasks that
// the kernel enforces at fork) and is the census of the tree. Memory is
// needed only to enforce a memory limit, cpuacct only to measure a CPU-time
// limit (optional: without it CPU time is sampled from /proc). Creating
// and removing a v1 memory or cpuacct group costs several milliseconds
// (the kernel's offlining of per-cpu and memcg state), so a run that is
// only bounded in processes — every CLI run under the default bound — makes
// only its pids group. Memory use is then sampled from /proc for the
// report, as in monitor mode, and never enforced by sampling: no memory
// limit is asked for.
func v1Controllers(l policy.Limits) (required, optional []string) {
	required = []string{"pids"}
	if l.MemoryBytes > 0 {
		required = append(required, "memory")
	}
	if l.CPUTime > 0 {
		optional = []string{"cpuacct"}
	}
	return required, optional
}
