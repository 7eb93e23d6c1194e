package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// Pure decisions: which error value a gRPC status or an HTTP answer is,
// and how a process's end becomes an ExecResult. Table-tested.

// Errors of the transport and the server, beside the error values a local
// Sandbox returns (pathrule.ErrPathRefused, policy.ErrDenied,
// fs.ErrNotExist, ringfence.ErrSessionFull), which remote errors wrap the
// same way so a caller tests both with errors.Is.
var (
	// ErrUnreachable: no connection to the server (refused, reset, DNS,
	// a TLS handshake that failed).
	ErrUnreachable = errors.New("remote: the sandbox server cannot be reached")
	// ErrAuth: the server refused the credentials (token or certificate).
	ErrAuth = errors.New("remote: the sandbox server refused the credentials")
	// ErrShuttingDown: the server is draining (health 503, new work refused).
	ErrShuttingDown = errors.New("remote: the sandbox server is shutting down")
	// ErrClosed: this client was closed.
	ErrClosed = errors.New("remote: the sandbox client is closed")
	// ErrInvalid: the server refused the request as malformed.
	ErrInvalid = errors.New("remote: the server refused the request as invalid")
	// ErrTooLarge: a file over the bound asked for, or over the server's.
	ErrTooLarge = errors.New("remote: the file is larger than the bound")
	// ErrProcessNotFound: the server knows no running process by that id.
	ErrProcessNotFound = errors.New("remote: no such running process on the server")
	// ErrClaimNotHeld: the server's outcome says it did not hold an
	// isolation the client was configured to claim (Options.Isolation),
	// or sent no outcome to back the claim with (not ringfence serve).
	ErrClaimNotHeld = errors.New("remote: the server did not back the isolation this client claims")
)

// Error is a refused or failed call: what the server said, and the error
// value it is (Unwrap), so errors.Is works as on a local Sandbox.
type Error struct {
	Op      string           // "exec", "read", "write", "signal", …
	Path    string           // the model path, for file calls
	Status  string           // the gRPC code or HTTP status the server answered
	Message string           // the server's message (its narration, from ringfence serve)
	Outcome *outcome.Outcome // ringfence serve's outcome, when it sent one
	Err     error            // the error value (a sentinel above, or a local one)
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("remote " + e.Op)
	if e.Path != "" {
		b.WriteString(" " + e.Path)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	if e.Status != "" {
		b.WriteString(" (" + e.Status + ")")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	return b.String()
}

// Unwrap is the error value, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// startFailure is what a failed Start or Execute call means: a result
// (the command could not be run: 127 missing, 126 not executable, as a
// shell and a local Sandbox report it) or an error.
type startFailure struct {
	res *ringfence.ExecResult
	err error
}

// cwdMessage: a status message about the working directory, ours
// ("cwd \"x\": …") and the reference daemon's ("cwd: …").
func cwdMessage(msg string) bool { return strings.HasPrefix(msg, "cwd") }

// grpcFailure maps a gRPC error of op to an error value — or, for a
// Start that never ran its program, to the result a local Sandbox gives.
func grpcFailure(op string, err error) startFailure {
	st, ok := status.FromError(err)
	if !ok {
		return startFailure{err: &Error{Op: op, Message: err.Error(), Err: ErrUnreachable}}
	}
	msg := st.Message()
	e := &Error{Op: op, Status: st.Code().String(), Message: msg}
	switch st.Code() {
	case codes.Unavailable:
		e.Err = ErrUnreachable
		if strings.Contains(msg, "shutting down") {
			e.Err = ErrShuttingDown
		}
	case codes.Unauthenticated:
		e.Err = ErrAuth
	case codes.PermissionDenied:
		switch {
		case op == "exec" && !cwdMessage(msg):
			return startFailure{res: notRun(126, msg)}
		case cwdMessage(msg):
			e.Err = pathrule.ErrPathRefused
		default:
			e.Err = policy.ErrDenied
		}
	case codes.NotFound:
		switch {
		case op == "exec" && !cwdMessage(msg):
			return startFailure{res: notRun(127, msg)}
		case cwdMessage(msg):
			e.Err = fs.ErrNotExist
		default:
			e.Err = ErrProcessNotFound
		}
	case codes.ResourceExhausted:
		e.Err = ringfence.ErrSessionFull
	case codes.InvalidArgument, codes.FailedPrecondition:
		e.Err = ErrInvalid
	case codes.Canceled:
		e.Err = errCanceled
	case codes.DeadlineExceeded:
		e.Err = errDeadline
	default:
		e.Err = errors.New("remote: the server failed the call")
	}
	return startFailure{err: e}
}

// Context errors as the gRPC client reports them (status codes): wrapped
// so errors.Is(err, context.Canceled) holds.
var (
	errCanceled = fmt.Errorf("remote: %w", context.Canceled)
	errDeadline = fmt.Errorf("remote: %w", context.DeadlineExceeded)
)

// notRun is the result of a command whose program could not be run: exit
// 127 (missing) or 126 (not executable), kind command-failure — what a
// local Sandbox reports, so a caller tells a typo from a missing bit.
func notRun(code int, msg string) *ringfence.ExecResult {
	c := code
	o := outcome.Outcome{Kind: outcome.NonzeroExit, ExitCode: &c}
	narr := "The command could not be run: the program is not executable."
	if code == 127 {
		o = outcome.Outcome{Kind: outcome.NotFound}
		narr = "The command could not be run: the program was not found."
	}
	return &ringfence.ExecResult{Kind: outcome.ResultKind(o), ExitCode: &c, Stderr: msg + "\n",
		Narration: narr, Outcome: o, Violations: []outcome.Violation{}}
}

// httpFailure maps a non-2xx answer of a /v1/files call to an error
// value. header is ringfence serve's Ringfence-Outcome (empty from the
// reference daemon), body the spec's {"code","message"}.
func httpFailure(op, path string, code int, header string, body []byte) error {
	e := &Error{Op: op, Path: path, Status: fmt.Sprintf("%d %s", code, http.StatusText(code))}
	var wire struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &wire) == nil {
		e.Message = wire.Message
	}
	if header != "" {
		var o outcome.Outcome
		if json.Unmarshal([]byte(header), &o) == nil && o.Kind != "" {
			e.Outcome = &o
		}
	}
	switch code {
	case http.StatusUnauthorized:
		e.Err = ErrAuth
	case http.StatusForbidden:
		e.Err = policy.ErrDenied
		if e.Outcome != nil && e.Outcome.Kind == outcome.PathRejected {
			e.Err = pathrule.ErrPathRefused
		}
	case http.StatusNotFound:
		e.Err = fs.ErrNotExist
	case http.StatusServiceUnavailable:
		e.Err = ErrShuttingDown
	case http.StatusRequestEntityTooLarge:
		e.Err = ErrTooLarge
	case http.StatusBadRequest, http.StatusConflict:
		e.Err = ErrInvalid
	default:
		e.Err = errors.New("remote: the server failed the call")
	}
	return e
}
