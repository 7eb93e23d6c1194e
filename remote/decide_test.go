package remote

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// The client reads back what the server's pipeline wrote: the extension's
// fields, and the model-facing outcome with the Kind derived from it.
func TestResultOfServerTrailer(t *testing.T) {
	code := 127
	sent := &ringfence.ExecResult{Kind: ringfence.KindCommandFailure, ExitCode: &code, Narration: "n", Backend: "linux",
		Violations:  []outcome.Violation{{Backend: "linux", Reason: "write-denied"}},
		Enforcement: ringfence.Enforcement{Files: "full", Network: "full"}, Outcome: outcome.Outcome{Kind: outcome.NotFound}}
	ex := int32(127)
	r, err := resultOf(end{exit: &ex, trailer: wire.Trailer(sent, nil)}, ringfence.Isolation{Filesystem: true, Network: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != sent.Kind || r.Outcome.Kind != outcome.NotFound || *r.ExitCode != 127 || r.Narration != "n" ||
		r.Backend != "linux" || len(r.Violations) != 1 || r.Enforcement.Files != "full" {
		t.Fatalf("read back %+v", r)
	}
}

func TestGRPCFailure(t *testing.T) {
	for _, c := range []struct {
		op   string
		code codes.Code
		msg  string
		want error
		exit int // a result with this exit code instead of an error
	}{
		{"exec", codes.Unavailable, "connection refused", ErrUnreachable, 0},
		{"exec", codes.Unavailable, "the server is shutting down", ErrShuttingDown, 0},
		{"exec", codes.Unauthenticated, "a bearer token is required", ErrAuth, 0},
		{"exec", codes.PermissionDenied, `cwd "/etc": cwd is outside the sandbox root`, pathrule.ErrPathRefused, 0},
		{"exec", codes.PermissionDenied, "cwd: outside", pathrule.ErrPathRefused, 0}, // the reference daemon's
		{"exec", codes.PermissionDenied, "the command did not start: not executable", nil, 126},
		{"exec", codes.PermissionDenied, "start: permission denied: fork/exec", nil, 126},
		{"exec", codes.NotFound, "the command did not start: not found", nil, 127},
		{"exec", codes.NotFound, "start: command or path not found", nil, 127},
		{"exec", codes.NotFound, `cwd "x": cwd does not exist`, fs.ErrNotExist, 0},
		{"signal", codes.NotFound, "process 3 not found", ErrProcessNotFound, 0},
		{"signal", codes.PermissionDenied, "no", policy.ErrDenied, 0},
		{"exec", codes.ResourceExhausted, "full", ringfence.ErrSessionFull, 0},
		{"exec", codes.InvalidArgument, "config.command is required", ErrInvalid, 0},
		{"resize", codes.FailedPrecondition, "no terminal", ErrInvalid, 0},
		{"exec", codes.Canceled, "", context.Canceled, 0},
		{"exec", codes.DeadlineExceeded, "", context.DeadlineExceeded, 0},
	} {
		f := grpcFailure(c.op, status.Error(c.code, c.msg))
		if c.exit != 0 {
			if f.err != nil || f.res == nil || f.res.ExitCode == nil || *f.res.ExitCode != c.exit || f.res.Kind != ringfence.KindCommandFailure {
				t.Errorf("%s %v %q: %+v, want a result with exit %d", c.op, c.code, c.msg, f, c.exit)
			}
			continue
		}
		if f.res != nil || !errors.Is(f.err, c.want) {
			t.Errorf("%s %v %q: %v, want %v", c.op, c.code, c.msg, f.err, c.want)
		}
	}
	if f := grpcFailure("exec", errors.New("not a status")); !errors.Is(f.err, ErrUnreachable) {
		t.Errorf("a non-status error: %v", f.err)
	}
}

func TestHTTPFailure(t *testing.T) {
	hdr := func(k outcome.Kind) string { b, _ := json.Marshal(outcome.Outcome{Kind: k}); return string(b) }
	for _, c := range []struct {
		code   int
		header string
		want   error
	}{
		{http.StatusUnauthorized, "", ErrAuth},
		{http.StatusForbidden, hdr(outcome.PathRejected), pathrule.ErrPathRefused},
		{http.StatusForbidden, hdr(outcome.DeniedByPolicy), policy.ErrDenied},
		{http.StatusForbidden, "", policy.ErrDenied}, // the reference daemon: no header
		{http.StatusForbidden, "{not json", policy.ErrDenied},
		{http.StatusNotFound, "", fs.ErrNotExist},
		{http.StatusServiceUnavailable, "", ErrShuttingDown},
		{http.StatusRequestEntityTooLarge, "", ErrTooLarge},
		{http.StatusConflict, "", ErrInvalid},
		{http.StatusBadRequest, "", ErrInvalid},
	} {
		err := httpFailure("read", "a", c.code, c.header, []byte(`{"code":"X","message":"the server's words"}`))
		var re *Error
		if !errors.Is(err, c.want) || !errors.As(err, &re) || re.Message != "the server's words" {
			t.Errorf("%d %q: %v, want %v", c.code, c.header, err, c.want)
		}
	}
	if err := httpFailure("read", "a", 500, "", nil); errors.Is(err, ErrAuth) || err == nil {
		t.Errorf("500: %v", err)
	}
}

func trailerOf(o wire.Outcome) metadata.MD {
	b, _ := json.Marshal(o)
	return metadata.Pairs(wire.TrailerKind, string(o.Kind), wire.TrailerOutcome, string(b))
}

func TestResultOf(t *testing.T) {
	zero, three, minus := int32(0), int32(3), int32(-1)
	full := ringfence.Isolation{Filesystem: true, Network: true, Processes: true}
	enf := ringfence.Enforcement{Files: "full", Network: "full"}
	code := 3
	denied := trailerOf(wire.Outcome{Kind: ringfence.KindDenied, ExitCode: &code, Backend: "linux", Enforcement: enf,
		Violations: []outcome.Violation{{Backend: "linux", Reason: "write-denied"}}, Narration: "refused"})
	for _, c := range []struct {
		name     string
		e        end
		claims   ringfence.Isolation
		kind     ringfence.Kind
		exit     *int
		claimErr bool
	}{
		{"reference: exit 0", end{exit: &zero}, ringfence.Isolation{}, ringfence.KindSuccess, intp(0), false},
		{"reference: exit 3", end{exit: &three}, ringfence.Isolation{}, ringfence.KindCommandFailure, intp(3), false},
		{"reference: signalled", end{exit: &minus}, ringfence.Isolation{}, ringfence.KindCommandFailure, nil, false},
		{"reference with claims", end{exit: &zero}, full, ringfence.KindSuccess, intp(0), true},
		{"ringfence: denied", end{exit: &three, trailer: denied}, full, ringfence.KindDenied, intp(3), false},
		{"client timeout wins", end{exit: &minus, trailer: denied, timedOut: true}, full, ringfence.KindTimedOut, nil, false},
		{"client cancel", end{exit: &minus, aborted: true}, ringfence.Isolation{}, ringfence.KindAborted, nil, false},
		{"output bound", end{exit: &minus, overrun: true, seenOut: 10, max: 5}, ringfence.Isolation{}, ringfence.KindOverBudget, nil, false},
		{"stream lost", end{streamErr: status.Error(codes.Unavailable, "gone")}, ringfence.Isolation{}, ringfence.KindRunnerFailure, nil, false},
		{"files not enforced", end{exit: &zero, trailer: trailerOf(wire.Outcome{Kind: ringfence.KindSuccess, Backend: "linux",
			Enforcement: ringfence.Enforcement{Files: "none", Network: "full"}})}, full, ringfence.KindSuccess, nil, true},
		{"landlock has no pid namespace", end{exit: &zero, trailer: trailerOf(wire.Outcome{Kind: ringfence.KindSuccess, Backend: "landlock",
			Enforcement: enf})}, ringfence.Isolation{Processes: true}, ringfence.KindSuccess, nil, true},
		{"an unknown kind: not believed", end{exit: &three, trailer: metadata.Pairs(wire.TrailerKind, "fine", wire.TrailerOutcome, `{"kind":"fine"}`)},
			ringfence.Isolation{}, ringfence.KindCommandFailure, intp(3), false},
		{"kind and outcome disagree: not believed", end{exit: &zero, trailer: metadata.Pairs(wire.TrailerKind, "denied", wire.TrailerOutcome, `{"kind":"success"}`)},
			ringfence.Isolation{}, ringfence.KindSuccess, intp(0), false},
	} {
		r, err := resultOf(c.e, c.claims)
		if r == nil || r.Kind != c.kind || (c.exit == nil) != (r.ExitCode == nil) && c.kind != ringfence.KindSuccess ||
			(c.exit != nil && (r.ExitCode == nil || *r.ExitCode != *c.exit)) {
			t.Errorf("%s: %+v, want kind %q exit %v", c.name, r, c.kind, c.exit)
		}
		if got := errors.Is(err, ErrClaimNotHeld); got != c.claimErr {
			t.Errorf("%s: claim error %v, want %v", c.name, err, c.claimErr)
		}
	}
	r, _ := resultOf(end{exit: &zero, seenOut: 10, seenErr: 2, max: 5}, ringfence.Isolation{})
	if r.Truncated == nil || r.Truncated.Stdout != 10 || r.Truncated.Stderr != 0 {
		t.Errorf("truncated: %+v", r.Truncated)
	}
}

func intp(i int) *int { return &i }

func TestNewRefuses(t *testing.T) {
	for _, o := range []Options{
		{GRPC: "no-port"},
		{GRPC: "10.1.2.3:9090", REST: "127.0.0.1:8080", Token: "t"}, // plaintext token off loopback
		{GRPC: "127.0.0.1:9090", REST: "example.com:8080", Token: "t"},
	} {
		if sb, err := New(o); err == nil {
			sb.Close()
			t.Errorf("New(%+v) accepted", o)
		}
	}
	sb, err := New(Options{GRPC: "[::1]:9090", REST: "localhost:8080", Token: "t"})
	if err != nil {
		t.Fatalf("a token to loopback: %v", err)
	}
	for range 2 { // Close is safe twice
		if err := sb.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sb.Exec(context.Background(), []string{"true"}, ringfence.ExecOptions{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Exec after Close: %v", err)
	}
	if _, err := sb.ReadFile(context.Background(), "a", 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("ReadFile after Close: %v", err)
	}
}
