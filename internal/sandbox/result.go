package sandbox

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
	return l.resultIn(l.narration(pol), cmd, pol, ro, res)
}

// resultIn is result with the narration context already made (a session
// makes it once for all its processes).
func (l *Local) resultIn(nc outcome.Context, cmd *confine.Cmd, pol *policy.Policy, ro run.Options, res *run.Result) *ExecResult {
	ev := outcome.Evidence{
		ExitCode: res.ExitCode, Signal: res.Signal, Stderr: res.Stderr,
		Status: res.Status, StatusChannel: cmd.Status != nil || res.StatusChannel,
		TimedOut: res.TimedOut, Aborted: res.Aborted, Breach: res.Breach,
		Usage:   res.Usage,
		Network: deniedNetwork(cmd, pol),
	}
	if res.Truncated != nil {
		ev.OutputSeen = max(res.Truncated.Stdout, res.Truncated.Stderr)
	}
	decisions, blocks, dropped := netEvidence(cmd)
	ev.Proxy, ev.ProxyAllowed = blocks, pol.Network.Domains
	cls := outcome.ClassifyExec(ev, cmd.Dialect)
	l.markProtected(pol, cls.Violations)
	lim := outcome.ExecLimits{
		Timeout: ro.Timeout, WallClock: pol.Limits.WallClock, MemoryBytes: pol.Limits.MemoryBytes,
		Processes: pol.Limits.Processes, CPUTime: pol.Limits.CPUTime, OutputBytes: outputCeiling(ro),
	}
	oc := outcome.FromExec(cls, ev, lim, nc)
	out := &ExecResult{
		// Kind only from the outcome (outcome.ResultKind): the two kinds
		// of a result cannot disagree.
		Kind: outcome.ResultKind(oc), ExitCode: cls.ExitCode, Signal: cls.Signal,
		Stdout: string(res.Stdout), Stderr: string(res.Stderr),
		TimedOut: res.TimedOut, DurationMs: res.DurationMs,
		Backend: cmd.Backend, Enforcement: l.enforcement(cmd, pol, res.Resources),
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
		cut := *res.Truncated // the result owns its copy
		out.Truncated = &cut
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
		Kind: outcome.ResultKind(oc), Backend: cmd.Backend,
		Enforcement: l.enforcement(cmd, pol, ""),
		Violations:  []outcome.Violation{},
		Narration:   outcome.Narrate(oc, nc),
		Outcome:     oc,
		RunnerError: err.Error(),
	}
}

// deniedNetwork names the network mode that denied this run something,
// for outcome to tell a failed lookup or connection as the sandbox's
// refusal: deny or loopback, and only where the backend enforced it (a
// backend that isolated nothing refused nothing).
func deniedNetwork(cmd *confine.Cmd, pol *policy.Policy) string {
	if cmd.Enforcement.Network == confine.NetNone || cmd.Enforcement.Network == "" || !pol.Confining() {
		return ""
	}
	switch pol.Network.Mode {
	case policy.NetDeny:
		return outcome.NetworkDeny
	case policy.NetLoopback:
		return outcome.NetworkLoopback
	case policy.NetDomains:
		// Domains without capture (the landlock backend): a direct
		// connection is refused, not handed to the proxy.
		if cmd.Enforcement.Network == confine.NetPartial {
			return outcome.NetworkProxyOnly
		}
	}
	return ""
}

func (l *Local) enforcement(cmd *confine.Cmd, pol *policy.Policy, res run.Resources) Enforcement {
	if res == "" {
		res = run.ResourcesNone
	}
	reasons := make([]string, 0, len(cmd.Enforcement.Reasons)+1)
	for _, r := range cmd.Enforcement.Reasons {
		reasons = append(reasons, l.scrubHostPaths(r))
	}
	if l.homeNote != "" && cmd.Backend != "none" {
		reasons = append(reasons, "home: "+l.scrubHostPaths(l.homeNote))
	}
	return Enforcement{
		Files: cmd.Enforcement.Files, Network: cmd.Enforcement.Network,
		Resources: res, Reasons: reasons, Scratch: scratchFate(l.cmdTraits(pol), pol.Mode),
	}
}

// scrubHostPaths rewrites the configured root and the private temp dir in
// free text to the paths the model sees, so a backend's reason never shows
// a host path.
func (l *Local) scrubHostPaths(s string) string {
	if l.tempDir != "" {
		s = outcome.ReplacePath(s, l.tempDir, l.modelPath(l.tempDir))
	}
	// At path boundaries only: "/ws-backup" is another directory. A root
	// of "/" is left alone (every path is "under" it).
	return outcome.ReplacePath(s, l.defaults.Root, l.cfg.MountPath)
}

func outputCeiling(ro run.Options) int64 {
	if ro.MaxStdout > 0 {
		return ro.MaxStdout
	}
	return run.DefaultMaxOutput
}

// scratchFate is what becomes of a write to /tmp (outside $TMPDIR) under
// the backend's traits and mode: the mount-namespace backends give a
// private tmpfs, thrown away at the end (the linux backend's is read-only
// in read-only mode, bwrap's --tmpfs is always writable).
func scratchFate(t confine.Traits, mode policy.Mode) string {
	switch t.Scratch {
	case confine.ScratchPrivateWritable:
		return "discarded"
	case confine.ScratchPrivate:
		if mode == policy.WorkspaceWrite {
			return "discarded"
		}
		return "read-only"
	}
	return "host"
}

// traits are what the selected backend declares it isolates; zero
// (nothing claimed) when no backend works here.
func (l *Local) traits() confine.Traits { return confine.TraitsOf(l.provider) }

// cmdTraits are the traits of what confined a command under pol: none for
// an unconfined (danger-full-access) run, which no backend touched.
func (l *Local) cmdTraits(pol *policy.Policy) confine.Traits {
	if !pol.Confining() {
		return confine.Traits{}
	}
	return l.traits()
}

// markProtected says, on each violation whose path the policy holds by
// name inside a writable root, which rule holds it: the narration then
// names the protection instead of advising to stay within the writable
// roots the path is already in. Paths are as the command printed them:
// under the mount path, the host path, or relative to where it started.
func (l *Local) markProtected(pol *policy.Policy, vs []outcome.Violation) {
	for i, v := range vs {
		p := v.Path
		if m := l.cfg.MountPath; m != "" && (p == m || strings.HasPrefix(p, m+"/")) {
			p = l.defaults.Root + p[len(m):]
		}
		vs[i].Protection = pol.ProtectionOf(p)
	}
}
