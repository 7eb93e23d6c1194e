package tools

import (
	"context"
	"errors"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Gate asks a person whether a call may go ahead. The MCP server
// implements it with elicitation; a CLI with a prompt. It is the only
// source of approvals: nothing in a call's arguments can stand for one.
type Gate interface {
	// Ask blocks until the person answers or ctx ends. An error means the
	// question could not be put or answered (gate-unavailable).
	Ask(ctx context.Context, q Question) (Answer, error)
}

// ErrNoApprover is what a Gate returns (or wraps) when the client it
// would ask can never approve: an MCP client without elicitation, an HTTP
// session whose credential is not an approver's. The call is then
// gate-unavailable with reason no-approver, narrated as the policy's final
// word rather than a hint to retry.
var ErrNoApprover = errors.New("tools: this client cannot approve")

// Question is what the person is asked.
type Question struct {
	Tool string
	// Summary is person-facing: the program(s), capability, reason and
	// paths, and for run_command the command line itself — the person must
	// see what they approve. It goes to the person, never to the model or
	// into a result.
	Summary        string
	Permissions    []string
	Classification execpolicy.Classification // zero for file tools
}

// Decision is the person's answer. The zero value declines, so a gate that
// forgets to set it refuses.
type Decision int

// The decisions.
const (
	Decline        Decision = iota
	ApproveOnce             // this call only (a single-call approval)
	ApproveSession          // this call and later ones like it in the session
)

func (d Decision) String() string {
	switch d {
	case Decline:
		return "decline"
	case ApproveOnce:
		return "approve-once"
	case ApproveSession:
		return "approve-session"
	}
	return "invalid"
}

// Answer is the person's decision and an optional note for the model.
type Answer struct {
	Decision Decision
	Note     string
}

// The audit names of what the approval step did.
const (
	gateSession  = "session"
	gateOnce     = "approved-once"
	gateForSess  = "approved-session"
	gateDeclined = "declined"
	gateTimeout  = "timeout"
	gateError    = "error"
	gateNone     = "no-gate"
	gateNoAppr   = "no-approver"
	gateAborted  = "aborted"
)

type reply struct {
	a   Answer
	err error
}

// ask puts q to the gate, bounded by GateTimeout. It returns the approving
// decision, or the outcome that ends the call and the audit word.
func (s *Set) ask(ctx context.Context, q Question) (Decision, *outcome.Outcome, string) {
	g := s.opts.Gate
	if g == nil {
		return 0, &outcome.Outcome{Kind: outcome.GateUnavailable, Reason: outcome.ReasonNoGate}, gateNone
	}
	gctx, cancel := context.WithTimeout(ctx, s.opts.GateTimeout)
	defer cancel()
	ch := make(chan reply, 1) // buffered: a gate that answers late never blocks
	go func() {
		defer func() {
			if recover() != nil {
				ch <- reply{err: errors.New("tools: the gate panicked")}
			}
		}()
		a, err := g.Ask(gctx, q)
		ch <- reply{a, err}
	}()
	var r reply
	select {
	case r = <-ch:
	case <-gctx.Done():
		r.err = gctx.Err()
	}
	d, o, word := judge(ctx, gctx, r)
	if o == nil {
		addNote(ctx, r.a.Note) // the approval's note reaches the model (notes.go)
	}
	return d, o, word
}

func judge(ctx, gctx context.Context, r reply) (Decision, *outcome.Outcome, string) {
	switch {
	case ctx.Err() != nil:
		return 0, &outcome.Outcome{Kind: outcome.Aborted}, gateAborted
	case errors.Is(r.err, ErrNoApprover):
		return 0, &outcome.Outcome{Kind: outcome.GateUnavailable, Reason: outcome.ReasonNoApprover}, gateNoAppr
	case r.err != nil && errors.Is(gctx.Err(), context.DeadlineExceeded):
		return 0, &outcome.Outcome{Kind: outcome.GateUnavailable, Reason: outcome.ReasonGateTimeout}, gateTimeout
	case r.err != nil:
		return 0, &outcome.Outcome{Kind: outcome.GateUnavailable, Reason: outcome.ReasonGateError}, gateError
	}
	switch r.a.Decision {
	case Decline:
		return 0, &outcome.Outcome{Kind: outcome.GateDeclined, Note: r.a.Note}, gateDeclined
	case ApproveOnce:
		return ApproveOnce, nil, gateOnce
	case ApproveSession:
		return ApproveSession, nil, gateForSess
	}
	return 0, &outcome.Outcome{Kind: outcome.GateUnavailable, Reason: outcome.ReasonGateError}, gateError
}

// mint turns an approving decision into a policy approval: single-call for
// ApproveOnce, session-scoped (and bound to this Set's session) for
// ApproveSession. This and policy.Approve are the only places an approval
// is made.
func (s *Set) mint(g policy.Grant, d Decision) *policy.Approval {
	g.SessionID = s.opts.SessionID
	g.Scope = policy.SingleCall
	if d == ApproveSession {
		g.Scope = policy.Session
	}
	a := policy.Approve(g)
	if s.onApproval != nil {
		s.onApproval(a)
	}
	return a
}

// remembered returns a session approval covering every key, preferring one
// that carries a network grant when needNet; ok is false when any key is
// not covered (or no covering approval carries the network needed).
func (s *Set) remembered(keys []string, needNet bool) (*policy.Approval, bool) {
	if len(keys) == 0 {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var pick *policy.Approval
	for _, k := range keys {
		a := s.approved[k]
		if a == nil {
			return nil, false
		}
		if pick == nil || (needNet && a.Grant().Network != nil) {
			pick = a
		}
	}
	if needNet && pick.Grant().Network == nil {
		return nil, false
	}
	return pick, true
}

// remember keeps a session approval under every key it was asked for.
func (s *Set) remember(keys []string, a *policy.Approval) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.approved[k] = a
	}
}

// The session keys. A program is remembered with its capability, so an
// approval of `curl` as network does not cover `curl` reading a secret; a
// write is remembered by its exact model path.
func execKey(program string, c execpolicy.Capability) string {
	return "exec\x00" + program + "\x00" + c.String()
}

func writeKey(modelPath string) string { return "write\x00" + modelPath }
