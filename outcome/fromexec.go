package outcome

import (
	"time"

	"github.com/ringfence/ringfence/internal/status"
)

// Bounds named by timed-out and over-budget outcomes. Each carries its unit
// so the number beside it reads without a manual.
const (
	BoundTimeout   = "timeout_seconds"    // the call's own timeout (a tool argument)
	BoundWallClock = "wall_clock_seconds" // the deployment's wall-clock limit
	BoundMemory    = "memory_bytes"
	BoundProcesses = "processes"
	BoundCPU       = "cpu_seconds"
	BoundOutput    = "output_bytes"
)

// ExecLimits are the limits a run was held to, for the numbers narration
// quotes. A zero field is unknown or unlimited and is left out.
type ExecLimits struct {
	Timeout     time.Duration // the call's timeout
	WallClock   time.Duration // policy.Limits.WallClock
	MemoryBytes int64
	Processes   int
	CPUTime     time.Duration
	OutputBytes int64 // the per-stream capture ceiling
}

// Detail given for a program that exists but cannot be executed.
const detailNotExecutable = "the program exists but cannot be executed (permissions or format)"

// FromExec maps a classified run onto the model-facing union, in model
// paths: anything naming c.HostRoot is rewritten to c.MountPath. Stderr
// reaches the outcome only as violation snippets already bounded by
// ClassifyExec, and only where a violation names no path.
func FromExec(r ExecClass, ev Evidence, lim ExecLimits, c Context) Outcome {
	var o Outcome
	switch r.Kind {
	case ExecSuccess:
		o = Outcome{Kind: OK, ExitCode: r.ExitCode}
	case ExecCommandFailure:
		o = commandFailure(r)
	case ExecDenied:
		o = Outcome{Kind: SandboxViolation, ExitCode: r.ExitCode, Signal: r.Signal, Violations: shortViolations(r.Violations), Network: r.Network}
		o.Protected, o.Unprotected = protectedPaths(r.Violations)
	case ExecRunnerFailure:
		o = Outcome{Kind: RunnerFailure, Reason: r.Reason, Stage: r.Stage}
	case ExecTimedOut:
		o = timedOut(ev, lim)
	case ExecAborted:
		o = Outcome{Kind: Aborted}
	case ExecOverBudget:
		o = overBudget(ev, lim)
	default:
		o = Outcome{Kind: RunnerFailure, Reason: "unclassified"}
	}
	if o.Kind == SandboxViolation && len(ev.Proxy) > 0 {
		o.Blocked = ev.Proxy[:min(len(ev.Proxy), maxListed)]
		o.Allowed = ev.ProxyAllowed
	}
	return c.Scrub(o)
}

func commandFailure(r ExecClass) Outcome {
	switch r.Reason {
	case status.NotFound:
		return Outcome{Kind: NotFound}
	case status.NotExecutable:
		return Outcome{Kind: NonzeroExit, ExitCode: r.ExitCode, Detail: detailNotExecutable}
	}
	return Outcome{Kind: NonzeroExit, ExitCode: r.ExitCode, Signal: r.Signal}
}

func timedOut(ev Evidence, lim ExecLimits) Outcome {
	if ev.Breach == BreachWallClock && !ev.TimedOut {
		return Outcome{Kind: TimedOut, Bound: BoundWallClock, Limit: seconds(lim.WallClock)}
	}
	return Outcome{Kind: TimedOut, Bound: BoundTimeout, Limit: seconds(lim.Timeout)}
}

func overBudget(ev Evidence, lim ExecLimits) Outcome {
	o := Outcome{Kind: OverBudget}
	switch ev.Breach {
	case BreachMemory:
		o.Bound, o.Limit, o.Observed = BoundMemory, lim.MemoryBytes, ev.Usage.PeakMemoryBytes
	case BreachProcesses:
		o.Bound, o.Limit, o.Observed = BoundProcesses, int64(lim.Processes), int64(ev.Usage.PeakProcesses)
	case BreachCPU:
		o.Bound, o.Limit, o.Observed = BoundCPU, seconds(lim.CPUTime), (ev.Usage.CPUMs+999)/1000
	case BreachOutput:
		o.Bound, o.Limit, o.Observed = BoundOutput, lim.OutputBytes, ev.OutputSeen
	default:
		o.Bound = string(ev.Breach)
	}
	return o
}

// seconds rounds up, so a limit of 1.5s is never told as "1 second".
func seconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Second - 1) / time.Second)
}

// shortViolations is what the model sees of each violation: the reason
// and the path, or a bounded snippet when the message named no path.
func shortViolations(vs []Violation) []string {
	out := make([]string, 0, min(len(vs), maxListed))
	for _, v := range vs {
		if len(out) == maxListed {
			break
		}
		switch {
		case v.Path != "":
			out = append(out, v.Reason+": "+cutUTF8(v.Path, maxQuoted))
		case v.Target != "":
			out = append(out, v.Reason+": "+cutUTF8(v.Target, maxQuoted))
		case v.Snippet != "":
			out = append(out, v.Reason+": "+cutUTF8(v.Snippet, maxFixed))
		default:
			out = append(out, v.Reason)
		}
	}
	return out
}

// protectedPaths lists the violations whose path the sandbox holds by name
// (bounded, as the model sees them) and counts the others; with none held
// by name, nothing (the outcome reads as before).
func protectedPaths(vs []Violation) ([]string, int) {
	var out []string
	others := 0
	for _, v := range vs {
		switch {
		case v.Protection == "" || v.Path == "":
			others++
		case len(out) < maxListed:
			out = append(out, cutUTF8(v.Path, maxQuoted)+" ("+cutUTF8(v.Protection, maxFixed)+")")
		}
	}
	if len(out) == 0 {
		return nil, 0
	}
	return out, others
}
