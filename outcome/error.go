package outcome

import "errors"

// Error is a refused or failed operation that carries the one outcome the
// model is shown. The workspace, the tools and the code runner all return
// it, so a caller reads any of their refusals with Of.
//
// Its message holds the kind, the reason, the detail and the program,
// never a path (a refused name may be content the model made up, and
// logs are not the model's channel: the outcome carries the path), file
// contents, code or command text.
type Error struct {
	// Op names who refused ("workspace", "tools", "coderun"): the
	// message's prefix.
	Op      string
	Outcome Outcome
	// Err is the sentinel the refusal also is (policy.ErrDenied,
	// pathrule.ErrPathRefused), for errors.Is; nil when none. This package
	// is pure and lower than both, so the refuser names it.
	Err error
}

func (e *Error) Error() string {
	msg := string(e.Outcome.Kind)
	if e.Op != "" {
		msg = e.Op + ": " + msg
	}
	if e.Outcome.Reason != "" {
		msg += " (" + e.Outcome.Reason + ")"
	}
	if e.Outcome.Detail != "" {
		msg += ": " + e.Outcome.Detail
	}
	if e.Outcome.Program != "" {
		msg += ": " + e.Outcome.Program
	}
	return msg
}

// Unwrap is the sentinel, if any.
func (e *Error) Unwrap() error { return e.Err }

// Of is the outcome carried by err or by any error it wraps.
func Of(err error) (Outcome, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Outcome, true
	}
	return Outcome{}, false
}
