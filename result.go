package ringfence

import (
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// result classifies what the supervisor saw and narrates it.
func (l *Local) result(cmd *confine.Cmd, pol *policy.Policy, ro run.Options, res *run.Result) *ExecResult {
	ev := outcome.Evidence{
		ExitCode: res.ExitCode, Signal: res.Signal, Stderr: res.Stderr,
		Status: res.Status, StatusChannel: cmd.Status != nil,
		TimedOut: res.TimedOut, Aborted: res.Aborted, Breach: string(res.Breach),
		Usage: outcome.Usage{PeakMemoryBytes: res.Usage.PeakMemoryBytes, PeakProcesses: res.Usage.PeakProcesses, CPUMs: res.Usage.CPUMs},
	}
	if res.Truncated != nil {
		ev.OutputSeen = max(res.Truncated.Stdout, res.Truncated.Stderr)
	}
	decisions, blocks, dropped := netEvidence(cmd)
	ev.Proxy, ev.ProxyAllowed = blocks, pol.Network.Domains
	cls := outcome.ClassifyExec(ev, cmd.Dialect)
	nc := l.narration(pol)
	lim := outcome.ExecLimits{
		Timeout: ro.Timeout, WallClock: pol.Limits.WallClock, MemoryBytes: pol.Limits.MemoryBytes,
		Processes: pol.Limits.Processes, CPUTime: pol.Limits.CPUTime, OutputBytes: outputCeiling(ro),
	}
	oc := outcome.FromExec(cls, ev, lim, nc)
	out := &ExecResult{
		Kind: string(cls.Kind), ExitCode: cls.ExitCode, Signal: cls.Signal,
		Stdout: string(res.Stdout), Stderr: string(res.Stderr),
		TimedOut: res.TimedOut, DurationMs: res.DurationMs,
		Backend: cmd.Backend, Enforcement: l.enforcement(cmd, res.Resources),
		Breach:     string(res.Breach),
		Violations: nc.ScrubViolations(cls.Violations),
		Narration:  outcome.Narrate(oc, nc),
		Outcome:    oc,
	}
	out.Network, out.NetworkDropped = decisions, dropped
	if out.Violations == nil {
		out.Violations = []outcome.Violation{}
	}
	if res.Truncated != nil {
		out.Truncated = &Truncated{Stdout: res.Truncated.Stdout, Stderr: res.Truncated.Stderr}
	}
	return out
}

// startFailure reports a runner that could not be started at all.
func (l *Local) startFailure(cmd *confine.Cmd, pol *policy.Policy, err error) *ExecResult {
	ev := outcome.Evidence{
		StatusChannel: true,
		Status:        status.Summary{Failure: &status.Event{Kind: status.Failed, Stage: "start", Reason: status.SetupFailed}},
	}
	cls := outcome.ClassifyExec(ev, cmd.Dialect)
	nc := l.narration(pol)
	oc := outcome.FromExec(cls, ev, outcome.ExecLimits{}, nc)
	return &ExecResult{
		Kind: string(cls.Kind), Backend: cmd.Backend,
		Enforcement: l.enforcement(cmd, ""),
		Violations:  []outcome.Violation{},
		Narration:   outcome.Narrate(oc, nc),
		Outcome:     oc,
		RunnerError: err.Error(),
	}
}

func (l *Local) enforcement(cmd *confine.Cmd, res run.Resources) Enforcement {
	if res == "" {
		res = run.ResourcesNone
	}
	reasons := make([]string, len(cmd.Enforcement.Reasons))
	for i, r := range cmd.Enforcement.Reasons {
		reasons[i] = l.scrubHostPaths(r)
	}
	return Enforcement{
		Files: string(cmd.Enforcement.Files), Network: string(cmd.Enforcement.Network),
		Resources: string(res), Reasons: reasons,
	}
}

// scrubHostPaths rewrites the configured root and the private temp dir in
// free text to the paths the model sees, so a backend's reason never shows
// a host path.
func (l *Local) scrubHostPaths(s string) string {
	if l.tempDir != "" {
		s = strings.ReplaceAll(s, l.tempDir, l.modelPath(l.tempDir))
	}
	if l.defaults.Root == "/" {
		return s // every path is "under" /: nothing to hide, and nothing to rewrite
	}
	return strings.ReplaceAll(s, l.defaults.Root, l.cfg.MountPath)
}

func outputCeiling(ro run.Options) int64 {
	if ro.MaxStdout > 0 {
		return ro.MaxStdout
	}
	return run.DefaultMaxOutput
}
