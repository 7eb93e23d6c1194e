package remote

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// The Sandbox contract through a real `ringfence serve`: files both ways,
// exit codes, stdin, env, cwd, ringfence's outcome (backend, enforcement,
// a violation) from the trailer, and the errors a local Sandbox gives.
func TestRemoteRoundTrip(t *testing.T) {
	s := startServe(t, "")
	sb := s.client(t, Options{Isolation: ringfence.Isolation{Filesystem: true, Network: true, Processes: true}})
	ctx := ctxT(t)
	if err := sb.Health(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sb.WriteFile(ctx, "sub/in.txt", []byte("from the client\n")); err != nil {
		t.Fatal(err)
	}
	res, err := sb.Exec(ctx, []string{"sh", "-c", `cat in.txt; cat; echo "$GIVEN" >&2; echo made > out.txt; exit 3`},
		ringfence.ExecOptions{Dir: "sub", Stdin: strings.NewReader("stdin line\n"), Env: map[string]string{"GIVEN": "given"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "from the client\nstdin line\n" || res.Stderr != "given\n" || res.ExitCode == nil || *res.ExitCode != 3 {
		t.Fatalf("result: %+v", res)
	}
	if res.Kind != ringfence.KindCommandFailure || res.Backend != "linux" || res.Enforcement.Files != "full" || res.Narration == "" {
		t.Fatalf("ringfence's outcome did not arrive: kind %q backend %q enforcement %+v narration %q", res.Kind, res.Backend, res.Enforcement, res.Narration)
	}
	got, err := sb.ReadFile(ctx, "sub/out.txt", 100)
	if err != nil || string(got) != "made\n" {
		t.Fatalf("ReadFile: %q %v", got, err)
	}
	// A refused write is a denied result with its violation, as locally.
	// Not under /tmp: the sandbox has a private one, where the write
	// would fail for want of the directory, not for confinement.
	host, err := os.MkdirTemp("/var/tmp", "remote-victim-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(host)
	outside := filepath.Join(host, "victim")
	res, err = sb.Exec(ctx, []string{"sh", "-c", `echo pwn > "$V"`}, ringfence.ExecOptions{Env: map[string]string{"V": outside}})
	if err != nil {
		t.Fatal(err)
	}
	if _, serr := os.Stat(outside); serr == nil {
		t.Fatal("a command wrote outside the root")
	}
	if res.Kind != ringfence.KindDenied || len(res.Violations) == 0 {
		t.Fatalf("a write outside: kind %q violations %v", res.Kind, res.Violations)
	}
	// The errors, as errors.Is finds them on a local Sandbox.
	if _, err := sb.ReadFile(ctx, "../etc/passwd", 100); !errors.Is(err, pathrule.ErrPathRefused) {
		t.Fatalf("ReadFile ..: %v", err)
	}
	if _, err := sb.Exec(ctx, []string{"true"}, ringfence.ExecOptions{Dir: "/etc"}); !errors.Is(err, pathrule.ErrPathRefused) {
		t.Fatalf("Exec in /etc: %v", err)
	}
	if _, err := sb.ReadFile(ctx, "no/such", 100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile missing: %v", err)
	}
	if err := sb.WriteFile(ctx, ".git/hooks/pre-commit", []byte("#!/bin/sh\n")); !errors.Is(err, policy.ErrDenied) {
		t.Fatalf("WriteFile of a protected path: %v", err)
	}
	if _, err := sb.ReadFile(ctx, "sub/out.txt", 4); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadFile over its bound: %v", err)
	}
	if _, err := sb.Exec(ctx, []string{"true"}, ringfence.ExecOptions{Dir: "nowhere"}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Exec in a missing dir: %v", err)
	}
	res, err = sb.Exec(ctx, []string{"no-such-program-xyz"}, ringfence.ExecOptions{})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 127 {
		t.Fatalf("a missing program: %+v %v", res, err)
	}
}

// A session's background process: stdin written in pieces, a signal, a
// terminal and its resize, and Wait — through the server.
func TestRemoteSession(t *testing.T) {
	s := startServe(t, "")
	sb := s.client(t, Options{})
	ctx := ctxT(t)
	ss := sb.Session()
	defer ss.Close()
	var live testenv.LockedBuffer
	p, err := ss.Start(ctx, ringfence.Cmd{Argv: []string{"sh", "-c", `while read l; do echo "got $l"; done; echo eof`}, Stdout: &live})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"one\n", "two\n"} {
		if _, err := p.Write([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait(ctx)
	if err != nil || res.Stdout != "got one\ngot two\neof\n" || res.Kind != ringfence.KindSuccess || live.String() != res.Stdout {
		t.Fatalf("stdin process: %+v %v (live: %q)", res, err, live.String())
	}
	// A server that runs until signalled.
	p, err = ss.Start(ctx, ringfence.Cmd{Argv: []string{"sh", "-c", `trap 'echo term; exit 9' TERM; echo up; while :; do sleep 0.05; done`}, Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { out, _ := p.stdout.snapshot(); return out == "up\n" })
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res, err = p.Wait(ctx)
	if err != nil || !strings.Contains(res.Stdout, "term") || res.ExitCode == nil || *res.ExitCode != 9 {
		t.Fatalf("signalled process: %+v %v", res, err)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, ErrProcessNotFound) {
		t.Fatalf("a signal to an ended process: %v", err)
	}
	// A terminal: stty reads the size, then the resized one.
	p, err = ss.Start(ctx, ringfence.Cmd{Argv: []string{"sh", "-c", `stty size; tty; read x; stty size`}, Terminal: &ringfence.WindowSize{Rows: 30, Cols: 100}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { out, _ := p.stdout.snapshot(); return strings.Contains(out, "/dev/pts/") })
	if err := p.Resize(ringfence.WindowSize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	res, err = p.Wait(ctx)
	if err != nil || !strings.Contains(res.Stdout, "30 100") || !strings.Contains(res.Stdout, "40 120") {
		t.Fatalf("terminal: %q %v", res.Stdout, err)
	}
}

// Timeouts and cancellation: the process is stopped through the server
// and the result says why, with no exit code.
func TestRemoteTimeoutAndCancel(t *testing.T) {
	s := startServe(t, "")
	sb := s.client(t, Options{})
	ctx := ctxT(t)
	start := time.Now()
	res, err := sb.Exec(ctx, []string{"sleep", "30"}, ringfence.ExecOptions{Timeout: 300 * time.Millisecond})
	if err != nil || res.Kind != ringfence.KindTimedOut || !res.TimedOut || res.ExitCode != nil || time.Since(start) > 15*time.Second {
		t.Fatalf("timeout: %+v %v after %v", res, err, time.Since(start))
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err = sb.Exec(cctx, []string{"sleep", "30"}, ringfence.ExecOptions{})
	if err != nil || res.Kind != ringfence.KindAborted || res.ExitCode != nil {
		t.Fatalf("cancel: %+v %v", res, err)
	}
	// Output past the bound with nobody reading live: stopped, over-budget.
	small := s.client(t, Options{MaxOutput: 1 << 10})
	res, err = small.Exec(ctx, []string{"sh", "-c", "yes"}, ringfence.ExecOptions{})
	if err != nil || res.Kind != ringfence.KindOverBudget || len(res.Stdout) != 1<<10 || res.Truncated == nil {
		t.Fatalf("output bound: kind %q len %d truncated %v err %v", res.Kind, len(res.Stdout), res.Truncated, err)
	}
}

// The errors of the transport: nobody listening, a wrong token, a server
// shutting down — each the value errors.Is looks for.
func TestRemoteTransportErrors(t *testing.T) {
	ctx := ctxT(t)
	// A port nobody listens on (a listener closed at once).
	dead := deadAddr(t)
	sb, err := New(Options{GRPC: dead, REST: dead})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if _, err := sb.Exec(ctx, []string{"true"}, ringfence.ExecOptions{}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Exec with nobody listening: %v", err)
	}
	if _, err := sb.ReadFile(ctx, "x", 10); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("ReadFile with nobody listening: %v", err)
	}
	if err := sb.Health(ctx); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Health with nobody listening: %v", err)
	}
	// A token the server does not hold.
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte("right-token-0123456789abcdef0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "", "--token-file", tokFile)
	wrong := s.client(t, Options{Token: "wrong"})
	if _, err := wrong.Exec(ctx, []string{"true"}, ringfence.ExecOptions{}); !errors.Is(err, ErrAuth) {
		t.Fatalf("Exec with a wrong token: %v", err)
	}
	if err := wrong.WriteFile(ctx, "x", nil); !errors.Is(err, ErrAuth) {
		t.Fatalf("WriteFile with a wrong token: %v", err)
	}
	right := s.client(t, Options{Token: "right-token-0123456789abcdef0123456789"})
	if res, err := right.Exec(ctx, []string{"true"}, ringfence.ExecOptions{}); err != nil || res.Kind != ringfence.KindSuccess {
		t.Fatalf("Exec with the token: %+v %v", res, err)
	}
	// A token is never sent in plaintext off loopback.
	if _, err := New(Options{GRPC: "192.0.2.1:9090", REST: "192.0.2.1:8080", Token: "t"}); err == nil {
		t.Fatal("a token over plaintext to another host was accepted")
	}
	// Shutting down: a running process ends, health and new work are refused.
	p, err := right.Session().Start(ctx, ringfence.Cmd{Argv: []string{"sleep", "300"}, Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.proc.Cmd.Process.Signal(syscall.SIGTERM)
	waitFor(t, func() bool {
		return errors.Is(right.Health(ctx), ErrShuttingDown) || errors.Is(right.Health(ctx), ErrUnreachable)
	})
	res, err := p.Wait(ctx)
	if err != nil || res.Kind == ringfence.KindSuccess || (res.ExitCode != nil && *res.ExitCode == 0) {
		t.Fatalf("sleep 300 across a shutdown: %+v %v", res, err)
	}
	_, err = right.Exec(ctx, []string{"true"}, ringfence.ExecOptions{})
	if !errors.Is(err, ErrShuttingDown) && !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Exec during shutdown: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
