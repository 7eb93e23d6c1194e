package tools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// runCommand: classification → (deny | approval) → confinement → the
// result, in model paths.
func (s *Set) runCommand(ctx context.Context, a *runArgs) Result {
	p := a.prep
	audit := AuditInfo{Programs: p.programs, Capability: p.class.Capability.String(), Classified: p.class.Outcome.String(), Class: &p.class}
	stop := func(o outcome.Outcome) Result { return Result{Outcome: o, Audit: audit} }
	if p.class.Outcome == execpolicy.Deny {
		return stop(outcome.Outcome{Kind: outcome.DeniedByPolicy, Axis: outcome.AxisExec, Program: p.class.Program, Detail: p.class.Capability.String()})
	}
	if o := s.checkCwd(p.cwd); o != nil {
		return stop(*o)
	}
	var ap *policy.Approval
	if p.class.Outcome == execpolicy.AskApproval {
		var o *outcome.Outcome
		if ap, o = s.approveCommand(ctx, a, &audit); o != nil {
			return stop(*o)
		}
	}
	why := ""
	if s.opts.Processes {
		r, handled, w := s.runInSession(ctx, a, ap, audit)
		if handled {
			return r
		}
		why = w
	}
	opts := ringfence.ExecOptions{Dir: p.cwd, Timeout: s.opts.DefaultTimeout, NetworkAsk: s.askNetwork}
	if a.TimeoutSeconds > 0 {
		opts.Timeout = time.Duration(a.TimeoutSeconds) * time.Second
	}
	if a.Stdin != nil {
		opts.Stdin = strings.NewReader(*a.Stdin)
	}
	res, err := s.sb.ExecRequest(ctx, p.argv, opts, policy.Request{Approval: ap, SessionID: s.opts.SessionID})
	if err != nil {
		return stop(s.execError(err, p.cwd))
	}
	if why != "" {
		return oneShot(s.execResult(res, audit), why)
	}
	return s.execResult(res, audit)
}

// checkCwd makes sure the working directory is a directory the policy lets
// the model read, with the workspace's own outcomes.
func (s *Set) checkCwd(rel string) *outcome.Outcome {
	if rel == "" {
		return nil
	}
	_, err := s.sb.Workspace().ReadFile(rel, workspace.ReadOptions{MaxBytes: 1, Raw: true})
	o, ok := outcome.Of(err)
	switch {
	case ok && o.Kind == outcome.IsADirectory:
		return nil
	case err == nil || o.Kind == outcome.OverBudget || o.Kind == outcome.NotARegularFile:
		return &outcome.Outcome{Kind: outcome.NotADirectory, Path: s.model(rel)}
	case ok:
		return &o
	}
	return &outcome.Outcome{Kind: outcome.IOFailure, Path: s.model(rel), Detail: "the working directory cannot be inspected"}
}

// approveCommand finds a session approval covering every part that asks,
// or asks the gate. An approval widens the network to allow-all when a part
// reaches the network; otherwise it widens nothing and records the
// decision. A session approval is kept per (program, capability), each
// carrying the network only when its own capability needs it.
func (s *Set) approveCommand(ctx context.Context, a *runArgs, audit *AuditInfo) (*policy.Approval, *outcome.Outcome) {
	return s.approveExec(ctx, a.prep, audit, func() Question {
		perms, _ := s.commandPermissions(a)
		return Question{Tool: "run_command", Summary: s.commandSummary(a), Permissions: perms, Classification: a.prep.class}
	})
}

// approveExec is the approval flow run_command and run_code share: a
// session approval covering every part that asks, else the gate's answer
// to the question built by ask (only built when the gate is asked).
func (s *Set) approveExec(ctx context.Context, p *prepared, audit *AuditInfo, ask func() Question) (*policy.Approval, *outcome.Outcome) {
	keys := make([]string, len(p.asks))
	for i, l := range p.asks {
		keys[i] = execKey(l.program, l.cap)
	}
	if ap, ok := s.remembered(keys, p.network); ok {
		audit.Gate, audit.Approval = gateSession, ap.String()
		return ap, nil
	}
	d, o, word := s.ask(ctx, ask())
	audit.Gate = word
	if o != nil {
		return nil, o
	}
	ap := s.mint(commandGrant(p.programs, p.network && !s.domainsNetwork()), d)
	if d == ApproveSession {
		for i, l := range p.asks {
			s.remember(keys[i:i+1], s.mint(commandGrant([]string{l.program}, netCap(l.cap) && !s.domainsNetwork()), d))
		}
	}
	audit.Approval = ap.String()
	return ap, nil
}

func commandGrant(programs []string, network bool) policy.Grant {
	g := policy.Grant{Justification: "run_command: " + strings.Join(programs, ", ")}
	if network {
		g.Network = &policy.Network{Mode: policy.NetAllowAll}
	}
	return g
}

// commandSummary is the person-facing question: the command itself, where
// it runs, each part that needs approval and why, and what approving
// grants. It is never shown to the model.
func (s *Set) commandSummary(a *runArgs) string {
	p := a.prep
	var b strings.Builder
	b.WriteString("run_command wants to run: ")
	if a.Command != nil {
		b.WriteString(quoteLong(*a.Command))
	} else {
		b.WriteString(quoteLong(strings.Join(p.argv, " ")))
	}
	b.WriteString("\nin " + s.model(p.cwd))
	for _, part := range asking(p.class) {
		b.WriteString("\n- " + part.Program + " (" + part.Capability.String() + "): " + part.Reason)
	}
	if p.network {
		b.WriteString("\nApproving lets this command reach any network host.")
	}
	return b.String()
}

// asking lists the parts of c that ask for approval.
func asking(c execpolicy.Classification) []execpolicy.Classification {
	if len(c.Parts) == 0 {
		if c.Outcome == execpolicy.AskApproval {
			return []execpolicy.Classification{c}
		}
		return nil
	}
	var out []execpolicy.Classification
	for _, p := range c.Parts {
		out = append(out, asking(p)...)
	}
	return out
}

// execError turns a run that never started into an outcome.
func (s *Set) execError(err error, cwd string) outcome.Outcome {
	var ae *policy.ApprovalError
	switch {
	case errors.As(err, &ae):
		return outcome.Outcome{Kind: outcome.GateUnavailable, Reason: "error"}
	case errors.Is(err, policy.ErrUnavailable):
		return outcome.Outcome{Kind: outcome.Unavailable, Detail: "no confinement backend works on this host"}
	case errors.Is(err, pathrule.ErrPathRefused):
		return outcome.Outcome{Kind: outcome.PathRejected, Path: s.model(cwd), Reason: "invalid"}
	case errors.Is(err, policy.ErrPolicy):
		return outcome.Outcome{Kind: outcome.Unavailable, Detail: "the deployment's policy cannot be resolved"}
	}
	return outcome.Outcome{Kind: outcome.RunnerFailure, Stage: "start"}
}

// execResult is the model's view of a run: model paths only, output
// bounded, and the structured result rewritten the same way.
func (s *Set) execResult(res *ringfence.ExecResult, audit AuditInfo) Result {
	d := *res
	d.Stdout, d.Stderr, d.Narration = s.scrub(res.Stdout), s.scrub(res.Stderr), s.scrub(res.Narration)
	d.Violations = s.nc.ScrubViolations(res.Violations)
	audit.Backend, audit.Violations, audit.Network = d.Backend, d.Violations, d.Network
	enf := d.Enforcement
	audit.Enforcement = &enf
	return Result{Text: s.execText(&d), Outcome: d.Outcome, Data: &d, Audit: audit, narration: d.Narration}
}

func (s *Set) execText(r *ringfence.ExecResult) string {
	return s.commandText(r, truncatedAt(r.Truncated, true), truncatedAt(r.Truncated, false)).Text(s.opts.MaxOutputBytes)
}

// commandText is the run as outcome words it: how it ended, each stream.
func (s *Set) commandText(r *ringfence.ExecResult, outSeen, errSeen int64) outcome.CommandText {
	return outcome.CommandText{ExitCode: r.ExitCode, Signal: r.Signal, Kind: string(r.Kind),
		Stdout: r.Stdout, Stderr: r.Stderr, StdoutSeen: outSeen, StderrSeen: errSeen}
}

func truncatedAt(t *ringfence.Truncated, stdout bool) int64 {
	switch {
	case t == nil:
		return 0
	case stdout:
		return t.Stdout
	}
	return t.Stderr
}
