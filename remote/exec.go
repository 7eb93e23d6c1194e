package remote

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/modelpath"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// cwdOf is ExecOptions.Dir (a model path) as the standard's cwd: read by
// internal/modelpath before anything is sent, exactly as a local Sandbox
// reads it (the mount path stripped; a refusal is path-rejected and
// wraps pathrule.ErrPathRefused); "", "." and the mount path are the root
// (no cwd sent: the server starts in its root).
func cwdOf(dir string) (string, error) {
	return modelpath.Mount("").Scope(dir)
}

// Exec runs argv on the server (a Start stream: stdin, live output and a
// terminal work as locally) and waits for its end. A timeout (opts, else
// Options.Timeout) or the context's end stops the process — SIGKILL to its
// group through the server — and the result says timed out or aborted.
// ExecOptions.NetworkAsk is not carried (the API has no way to ask); the
// server's policy decides alone. Terminal runs it on a 24x80 terminal of
// the server's; Terminal's Input and Size are not relayed.
func (s *Sandbox) Exec(ctx context.Context, argv []string, opts ringfence.ExecOptions) (*ringfence.ExecResult, error) {
	dir, err := cwdOf(opts.Dir)
	if err != nil {
		return nil, err
	}
	sp := startSpec{argv: argv, dir: dir, env: opts.Env, stdout: opts.Stdout, stderr: opts.Stderr, stdin: opts.Stdin}
	if sp.stdin == nil {
		sp.stdin = emptyReader{} // no Stdin is empty input, as locally
	}
	if opts.Terminal != nil {
		sp.pty = &pb.PTY{Rows: 24, Cols: 80}
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = s.o.Timeout
	}
	p, res, err := s.start(ctx, sp)
	if err != nil || res != nil {
		return res, err
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-p.done:
	case <-timer:
		p.stopFor(true)
	case <-ctx.Done():
		// The context's deadline is a timeout, its cancel an abort.
		p.stopFor(errors.Is(ctx.Err(), context.DeadlineExceeded))
	}
	return p.Wait(context.Background())
}

type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, io.EOF }

// Session is a handle on the server's processes: Start runs one that
// outlives the call (a server, a REPL), with stdin, signals and a terminal.
// It is the shape of ringfence.Session's Start/Processes/Close, which is a
// concrete type a remote session cannot be. On ringfence serve every
// process of every client shares the server's one confined session (one
// view, /tmp and loopback, as processes in one pod): two Sessions of one
// server are not isolated from each other. Close stops the processes this
// Session started, not the server's session.
type Session struct {
	s *Sandbox

	mu     sync.Mutex
	procs  []*Process
	closed bool
}

// Session opens a handle for background processes.
func (s *Sandbox) Session() *Session { return &Session{s: s} }

// Start starts c on the server. c.Stdin nil leaves stdin open for
// Process.Write until CloseStdin; c.Timeout zero is Options.Timeout,
// negative none. c.Request is refused (ringfence.ErrSessionPolicy): the
// server runs every process under its own policy.
func (ss *Session) Start(ctx context.Context, c ringfence.Cmd) (*Process, error) {
	if c.Request != nil {
		return nil, &Error{Op: "start", Message: "the server runs every process under its deployment's policy", Err: ringfence.ErrSessionPolicy}
	}
	ss.mu.Lock()
	closed := ss.closed
	ss.mu.Unlock()
	if closed {
		return nil, &Error{Op: "start", Err: ringfence.ErrSessionClosed}
	}
	dir, err := cwdOf(c.Dir)
	if err != nil {
		return nil, err
	}
	sp := startSpec{argv: c.Argv, dir: dir, env: c.Env, stdin: c.Stdin, stdout: c.Stdout, stderr: c.Stderr}
	if c.Terminal != nil {
		sp.pty = &pb.PTY{Rows: uint32(c.Terminal.Rows), Cols: uint32(c.Terminal.Cols)}
	}
	p, res, err := ss.s.start(ctx, sp)
	if err != nil {
		return nil, err
	}
	if res != nil {
		// The program could not be run: as a process that ended at once.
		return nil, &Error{Op: "start", Message: res.Stderr, Err: errNotRun}
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = ss.s.o.Timeout
	}
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() { p.stopFor(true) })
		go func() { <-p.done; t.Stop() }()
	}
	ss.mu.Lock()
	ss.procs = append(ss.procs, p)
	ss.mu.Unlock()
	return p, nil
}

// errNotRun: Start's program could not be run (missing, not executable).
var errNotRun = errors.New("remote: the program could not be run")

// Processes are the processes this Session started, in start order.
func (ss *Session) Processes() []*Process {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]*Process(nil), ss.procs...)
}

// Close stops every process this Session started that still runs. Safe
// twice.
func (ss *Session) Close() error {
	ss.mu.Lock()
	ss.closed = true
	procs := ss.procs
	ss.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); p.kill() }()
	}
	wg.Wait()
	return nil
}
