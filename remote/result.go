package remote

import (
	"encoding/json"
	"fmt"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
)

// ringfence serve's trailing metadata (process.TrailerKind and
// process.TrailerOutcome; a test pins them together).
const (
	trailerKind    = "ringfence-kind"
	trailerOutcome = "ringfence-outcome-bin"
)

// wireOutcome is the JSON of ringfence serve's outcome trailer
// (process.Outcome), read field by field so the client does not link the
// server.
type wireOutcome struct {
	Kind        ringfence.Kind        `json:"kind"`
	ExitCode    *int                  `json:"exitCode"`
	Signal      string                `json:"signal,omitempty"`
	TimedOut    bool                  `json:"timedOut,omitempty"`
	Breach      string                `json:"breach,omitempty"`
	Violations  []outcome.Violation   `json:"violations"`
	Narration   string                `json:"narration"`
	Backend     string                `json:"backend"`
	Enforcement ringfence.Enforcement `json:"enforcement"`
	Truncated   *ringfence.Truncated  `json:"truncated,omitempty"`
}

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

// extension reads ringfence serve's outcome from the trailer; ok is false
// when there is none (the reference daemon) or it does not parse.
func extension(md metadata.MD) (wireOutcome, bool) {
	var w wireOutcome
	kinds, bins := md.Get(trailerKind), md.Get(trailerOutcome)
	if len(kinds) != 1 || len(bins) != 1 {
		return w, false
	}
	if json.Unmarshal([]byte(bins[0]), &w) != nil || !knownKind(w.Kind) || string(w.Kind) != kinds[0] {
		return w, false
	}
	return w, true
}

// knownKind: one of the result kinds this client knows; any other is not
// believed (the outcome is then judged from the exit code).
func knownKind(k ringfence.Kind) bool {
	switch k {
	case ringfence.KindSuccess, ringfence.KindDenied, ringfence.KindCommandFailure, ringfence.KindRunnerFailure,
		ringfence.KindTimedOut, ringfence.KindAborted, ringfence.KindOverBudget:
		return true
	}
	return false
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
	w, ext := extension(e.trailer)
	if ext {
		r.Kind, r.ExitCode, r.Signal, r.TimedOut, r.Breach = w.Kind, w.ExitCode, w.Signal, w.TimedOut, w.Breach
		if w.Violations != nil {
			r.Violations = w.Violations
		}
		r.Narration, r.Backend, r.Enforcement = w.Narration, w.Backend, w.Enforcement
	} else if e.exit != nil {
		code := int(*e.exit)
		switch {
		case code == 0:
			r.Kind, r.ExitCode = ringfence.KindSuccess, &code
		case code < 0: // the standard's -1: stopped by a signal
			r.Kind = ringfence.KindCommandFailure
		default:
			r.Kind, r.ExitCode = ringfence.KindCommandFailure, &code
		}
		r.Narration = fmt.Sprintf("The command ended with exit code %d.", code)
	}
	switch {
	case e.timedOut:
		r.Kind, r.ExitCode, r.Signal, r.TimedOut = ringfence.KindTimedOut, nil, "", true
		r.Narration = "The command was stopped: it ran past its timeout."
	case e.aborted:
		r.Kind, r.ExitCode, r.Signal = ringfence.KindAborted, nil, ""
		r.Narration = "The command was stopped: the call was cancelled."
	case e.overrun:
		r.Kind, r.ExitCode, r.Signal, r.Breach = ringfence.KindOverBudget, nil, "", "output"
		r.Narration = fmt.Sprintf("The command was stopped: it printed more than %d bytes.", e.max)
	case r.Kind == "":
		// No exit event: the stream was lost (the server went away, or
		// shut down under it).
		r.Kind = ringfence.KindRunnerFailure
		r.RunnerError = "remote: the process's stream ended without an exit"
		if e.streamErr != nil {
			r.RunnerError = grpcFailure("exec", e.streamErr).err.Error()
		}
		r.Narration = "The sandbox server stopped answering before the command ended."
	}
	r.Outcome = outcome.Outcome{Kind: outcomeKind(r)}
	if err := claimHeld(claims, w, ext); err != nil {
		return r, err
	}
	return r, nil
}

// outcomeKind is the model-facing kind of a remote result, as far as the
// client can tell without ringfence's classifier.
func outcomeKind(r *ringfence.ExecResult) outcome.Kind {
	switch r.Kind {
	case ringfence.KindSuccess:
		return outcome.OK
	case ringfence.KindTimedOut:
		return outcome.TimedOut
	case ringfence.KindAborted:
		return outcome.Aborted
	case ringfence.KindOverBudget:
		return outcome.OverBudget
	case ringfence.KindDenied:
		return outcome.SandboxViolation
	case ringfence.KindRunnerFailure:
		return outcome.RunnerFailure
	}
	return outcome.NonzeroExit
}

// claimHeld checks the caller's claims against the server's outcome: a
// claim with no outcome to back it (not ringfence serve), files not
// enforced, or the network not enforced, is not held.
func claimHeld(c ringfence.Isolation, w wireOutcome, ext bool) error {
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
