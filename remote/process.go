package remote

import (
	"context"
	"errors"
	"io"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

// Process is one command running on the server, started by Exec or by a
// Session: the same shape as ringfence.Process (Write, CloseStdin, Signal,
// Resize, Wait, Done, Running), which is a concrete type a remote process
// cannot be.
type Process struct {
	// ID is the server's process id (the standard's process_id).
	ID   int32
	Argv []string

	s      *Sandbox
	cancel context.CancelFunc // ends the Start stream (the server then kills the process)
	begin  time.Time
	stdin  bool // stdin is open for Write (no Cmd.Stdin given)
	tty    bool

	stdout, stderr *capture
	done           chan struct{}

	mu       sync.Mutex
	exit     *int32
	trailer  metadata.MD
	endErr   error // the stream failed before an exit event
	timedOut bool
	aborted  bool
	overrun  bool // output past the bound with no live reader: stopped
	ended    time.Time
	closedIn bool
}

// capture keeps the first max bytes of a stream, counts them all, and
// passes every byte to a live writer.
type capture struct {
	mu   sync.Mutex
	buf  []byte
	max  int64
	seen int64
	live io.Writer
}

// write keeps b and reports whether the kept copy was cut.
func (c *capture) write(b []byte) bool {
	c.mu.Lock()
	c.seen += int64(len(b))
	if room := c.max - int64(len(c.buf)); room > 0 {
		c.buf = append(c.buf, b[:min(room, int64(len(b)))]...)
	}
	cut := c.seen > c.max
	live := c.live
	c.mu.Unlock()
	if live != nil {
		_, _ = live.Write(b)
	}
	return cut
}

func (c *capture) snapshot() (string, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.buf), c.seen
}

// startSpec is one process to start.
type startSpec struct {
	argv           []string
	dir            string
	env            map[string]string
	stdin          io.Reader // nil: open for Write
	stdout, stderr io.Writer
	pty            *pb.PTY
}

// start opens a Start stream and waits for its InitEvent. A program that
// could not be run comes back as a result (127, 126), not a process.
func (s *Sandbox) start(ctx context.Context, sp startSpec) (*Process, *ringfence.ExecResult, error) {
	if s.closed.Load() {
		return nil, nil, &Error{Op: "exec", Err: ErrClosed}
	}
	if len(sp.argv) == 0 || sp.argv[0] == "" {
		return nil, nil, &Error{Op: "exec", Err: errNoArgv}
	}
	cfg := &pb.ProcessConfig{Command: sp.argv, EnvVars: sp.env}
	if sp.dir != "" {
		cfg.Cwd = &sp.dir
	}
	// The stream outlives ctx (a session's process runs on after the call
	// that started it); it ends with the process, Kill, or Close.
	sctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel) // until InitEvent: ctx bounds the start
	stream, err := s.pc.Start(sctx, &pb.StartRequest{Config: cfg, Pty: sp.pty})
	var first *pb.StartResponse
	if err == nil {
		first, err = stream.Recv()
	}
	if !stop() || err != nil {
		cancel()
		if err == nil {
			err = ctx.Err()
		}
		if ctx.Err() != nil {
			return nil, nil, &Error{Op: "exec", Message: err.Error(), Err: ctx.Err()}
		}
		f := grpcFailure("exec", err)
		return nil, f.res, f.err
	}
	init := first.GetInit()
	if init == nil {
		cancel()
		return nil, nil, &Error{Op: "exec", Message: "the server's first event was not InitEvent", Err: ErrInvalid}
	}
	p := &Process{ID: init.GetProcessId(), Argv: append([]string(nil), sp.argv...), s: s, cancel: cancel,
		begin: time.Now(), stdin: sp.stdin == nil, tty: sp.pty != nil, done: make(chan struct{}),
		stdout: &capture{max: s.o.MaxOutput, live: sp.stdout}, stderr: &capture{max: s.o.MaxOutput, live: sp.stderr}}
	if err := s.track(p); err != nil {
		cancel()
		return nil, nil, &Error{Op: "exec", Err: err}
	}
	go p.read(stream, sp.stdout == nil && sp.stderr == nil)
	if sp.stdin != nil {
		go p.feed(sp.stdin)
	}
	return p, nil, nil
}

// read receives the process's output and end. bounded: no live reader,
// so output past MaxOutput stops the process (over-budget), as a local
// Sandbox stops one past its ceiling.
func (p *Process) read(stream grpc.ServerStreamingClient[pb.StartResponse], bounded bool) {
	defer p.s.untrack(p)
	defer p.cancel()
	for {
		ev, err := stream.Recv()
		if err != nil {
			p.mu.Lock()
			if !errors.Is(err, io.EOF) && p.exit == nil {
				p.endErr = err
			}
			p.trailer = stream.Trailer()
			p.ended = time.Now()
			p.mu.Unlock()
			close(p.done)
			return
		}
		var cut bool
		switch e := ev.Event.(type) {
		case *pb.StartResponse_Stdout:
			cut = p.stdout.write(e.Stdout)
		case *pb.StartResponse_Stderr:
			cut = p.stderr.write(e.Stderr)
		case *pb.StartResponse_Exit:
			code := e.Exit.GetExitCode()
			p.mu.Lock()
			p.exit = &code
			p.mu.Unlock()
		}
		if cut && bounded {
			p.mu.Lock()
			first := !p.overrun
			p.overrun = true
			p.mu.Unlock()
			if first {
				go p.kill()
			}
		}
	}
}

// feed copies r to the process's stdin, then sends end-of-file.
func (p *Process) feed(r io.Reader) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if p.writeStdin(context.Background(), buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	_ = p.eof(context.Background())
}

func (p *Process) writeStdin(ctx context.Context, b []byte) error {
	ctx, cancel := mergeDone(ctx, p.done)
	defer cancel()
	_, err := p.s.pc.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: p.ID, Payload: &pb.WriteStdinRequest_Input{Input: b}})
	if err != nil {
		return grpcFailure("write-stdin", err).err
	}
	return nil
}

func (p *Process) eof(ctx context.Context) error {
	ctx, cancel := mergeDone(ctx, p.done)
	defer cancel()
	_, err := p.s.pc.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: p.ID, Payload: &pb.WriteStdinRequest_Eof{}})
	if err != nil {
		return grpcFailure("write-stdin", err).err
	}
	return nil
}

// mergeDone is ctx, also ended when done closes.
func mergeDone(ctx context.Context, done <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// Write sends b to the process's stdin (its terminal, with one).
func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	open := p.stdin && !p.closedIn
	p.mu.Unlock()
	if !open {
		return 0, &Error{Op: "write-stdin", Message: "stdin is not writable (Cmd.Stdin was given, or it is closed)", Err: ErrInvalid}
	}
	for off := 0; off < len(b); off += maxStdinChunk {
		if err := p.writeStdin(context.Background(), b[off:min(len(b), off+maxStdinChunk)]); err != nil {
			return off, err
		}
	}
	return len(b), nil
}

// maxStdinChunk keeps one WriteStdin well under ringfence serve's bound
// (wire.MaxStdinChunk; the reference daemon states none): half of it.
const maxStdinChunk = wire.MaxStdinChunk / 2

// CloseStdin ends the process's input (end-of-file; on a terminal, the
// server types Ctrl-D).
func (p *Process) CloseStdin() error {
	p.mu.Lock()
	open := p.stdin && !p.closedIn
	p.closedIn = true
	p.mu.Unlock()
	if !open {
		return nil
	}
	return p.eof(context.Background())
}

// Signal sends sig (SIGINT, SIGTERM or SIGKILL: the standard's three) to
// the process's group.
func (p *Process) Signal(sig syscall.Signal) error {
	s, ok := wire.ProtoSignal(sig)
	if !ok {
		return &Error{Op: "signal", Message: sig.String() + " is not one the API carries (SIGINT, SIGTERM, SIGKILL)", Err: ErrInvalid}
	}
	ctx, cancel := context.WithTimeout(context.Background(), killWait)
	defer cancel()
	if _, err := p.s.pc.SendSignal(ctx, &pb.SendSignalRequest{ProcessId: p.ID, Signal: s}); err != nil {
		return grpcFailure("signal", err).err
	}
	return nil
}

// Resize changes the process's terminal size.
func (p *Process) Resize(size ringfence.WindowSize) error {
	if !p.tty {
		return &Error{Op: "resize", Message: "the process has no terminal", Err: ErrInvalid}
	}
	ctx, cancel := context.WithTimeout(context.Background(), killWait)
	defer cancel()
	_, err := p.s.pc.ResizeTTY(ctx, &pb.ResizeTTYRequest{ProcessId: p.ID, Rows: uint32(size.Rows), Cols: uint32(size.Cols)})
	if err != nil {
		return grpcFailure("resize", err).err
	}
	return nil
}

// Done is closed once the process has ended (or its stream was lost).
func (p *Process) Done() <-chan struct{} { return p.done }

// Running reports whether the process has not ended.
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// kill stops the process: SIGKILL to its group through the server, its
// end awaited for a moment (so its outcome arrives), then the stream cut
// (the server kills what is left when a client goes away).
func (p *Process) kill() {
	if !p.Running() {
		return
	}
	_ = p.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(killWait):
		p.cancel()
		<-p.done
	}
}

// stopFor stops the process because its timeout passed or its caller's
// context ended.
func (p *Process) stopFor(timedOut bool) {
	p.mu.Lock()
	if timedOut {
		p.timedOut = true
	} else {
		p.aborted = true
	}
	p.mu.Unlock()
	p.kill()
}

// Wait waits for the process to end and returns its result: ringfence
// serve's outcome when it sent one, else one judged from the exit code.
// A ctx that ends first returns its error; the process runs on. The
// error is ErrClaimNotHeld (with the result) when the outcome does not
// back Options.Isolation.
func (p *Process) Wait(ctx context.Context) (*ringfence.ExecResult, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	e := end{exit: p.exit, trailer: p.trailer, timedOut: p.timedOut, aborted: p.aborted, overrun: p.overrun,
		duration: p.ended.Sub(p.begin), streamErr: p.endErr}
	p.mu.Unlock()
	e.stdout, e.seenOut = p.stdout.snapshot()
	e.stderr, e.seenErr = p.stderr.snapshot()
	e.max = p.s.o.MaxOutput
	return resultOf(e, p.s.o.Isolation)
}
