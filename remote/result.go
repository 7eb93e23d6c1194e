package remote

import (
	"fmt"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/outcome"
)

// end is what the client saw of a process's end.
type end struct {
	exit              *int32 // the ExitEvent's exit_code; nil when none came
	trailer           metadata.MD
	timedOut, aborted bool // the client stopped it: its timeout, its caller's context
	overrun           bool // the client stopped it: output past the bound, nobody reading live
	streamErr         error
	stdout, stderr    string
	seenOut, seenErr  int64
	max               int64
	duration          time.Duration
}

// resultOf builds the ExecResult of a process's end. Precedence: what the
// client itself did (its timeout, its caller's cancel, its output bound)
// — the server only saw a SIGKILL; then ringfence serve's outcome; then,
// without one, the exit code alone (0 success, else command-failure).
func resultOf(e end, claims ringfence.Isolation) (*ringfence.ExecResult, error) {
	r := &ringfence.ExecResult{Stdout: e.stdout, Stderr: e.stderr, DurationMs: e.duration.Milliseconds(),
		Violations: []outcome.Violation{}}
	if e.seenOut > e.max || e.seenErr > e.max {
		r.Truncated = &ringfence.Truncated{}
		if e.seenOut > e.max {
			r.Truncated.Stdout = e.seenOut
		}
		if e.seenErr > e.max {
			r.Truncated.Stderr = e.seenErr
		}
	}
	w, ext := wire.FromTrailer(e.trailer)
	var o outcome.Outcome // the situation; r.Kind is derived from it alone
	if ext {
		r.ExitCode, r.Signal, r.TimedOut, r.Breach = w.ExitCode, w.Signal, w.TimedOut, w.Breach
		if w.Violations != nil {
			r.Violations = w.Violations
		}
		r.Narration, r.Backend, r.Enforcement = w.Narration, w.Backend, w.Enforcement
		o = outcome.Outcome{Kind: outcome.SituationOf(w.Kind)} // a server older than the outcome field
		if w.Outcome != nil {
			o = *w.Outcome // FromTrailer checked it agrees with w.Kind
		}
	} else if e.exit != nil {
		code := int(*e.exit)
		switch {
		case code == 0:
			r.ExitCode = &code
			o = outcome.Outcome{Kind: outcome.OK, ExitCode: &code}
		case code < 0: // the standard's -1: stopped by a signal
			o = outcome.Outcome{Kind: outcome.NonzeroExit}
		default:
			r.ExitCode = &code
			o = outcome.Outcome{Kind: outcome.NonzeroExit, ExitCode: &code}
		}
		r.Narration = fmt.Sprintf("The command ended with exit code %d.", code)
	}
	switch {
	case e.timedOut:
		r.ExitCode, r.Signal, r.TimedOut = nil, "", true
		o = outcome.Outcome{Kind: outcome.TimedOut}
		r.Narration = "The command was stopped: it ran past its timeout."
	case e.aborted:
		r.ExitCode, r.Signal = nil, ""
		o = outcome.Outcome{Kind: outcome.Aborted}
		r.Narration = "The command was stopped: the call was cancelled."
	case e.overrun:
		r.ExitCode, r.Signal, r.Breach = nil, "", string(outcome.BreachOutput)
		o = outcome.Outcome{Kind: outcome.OverBudget, Bound: outcome.BoundOutput, Limit: e.max, Observed: max(e.seenOut, e.seenErr)}
		r.Narration = fmt.Sprintf("The command was stopped: it printed more than %d bytes.", e.max)
	case o.Kind == "":
		// No exit event: the stream was lost (the server went away, or
		// shut down under it).
		o = outcome.Outcome{Kind: outcome.RunnerFailure}
		r.RunnerError = "remote: the process's stream ended without an exit"
		if e.streamErr != nil {
			r.RunnerError = grpcFailure("exec", e.streamErr).err.Error()
		}
		r.Narration = "The sandbox server stopped answering before the command ended."
	}
	r.Outcome, r.Kind = o, outcome.ResultKind(o)
	if err := claimHeld(claims, w, ext); err != nil {
		return r, err
	}
	return r, nil
}

// claimHeld checks the caller's claims against the server's outcome: a
// claim with no outcome to back it (not ringfence serve), files not
// enforced, or the network not enforced, is not held.
func claimHeld(c ringfence.Isolation, w wire.Outcome, ext bool) error {
	if c == (ringfence.Isolation{}) {
		return nil
	}
	if !ext {
		return fmt.Errorf("%w: the server sent no ringfence outcome (it is not ringfence serve, or an old one)", ErrClaimNotHeld)
	}
	switch {
	case c.Filesystem && (w.Enforcement.Files == "" || w.Enforcement.Files == "none"):
		return fmt.Errorf("%w: files enforcement %q", ErrClaimNotHeld, w.Enforcement.Files)
	case c.Network && (w.Enforcement.Network == "" || w.Enforcement.Network == "none"):
		return fmt.Errorf("%w: network enforcement %q", ErrClaimNotHeld, w.Enforcement.Network)
	case c.Processes && (w.Backend == "" || w.Backend == "landlock"):
		return fmt.Errorf("%w: backend %q has no pid namespace", ErrClaimNotHeld, w.Backend)
	}
	return nil
}
