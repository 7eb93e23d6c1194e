package process

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/policy"
)

// Defaults of a Server.
const (
	DefaultChunkSize    = 4096       // bytes per stdout/stderr event of Start
	DefaultMaxProcesses = 64         // processes running at once
	DefaultOutputKept   = 64 << 10   // recent bytes kept per stream for the outcome
	MaxExecuteOutput    = 1536 << 10 // bytes of each stream Execute returns (gRPC's 4 MiB message bound)
	maxEnvVars          = 256
	maxArgBytes         = 1 << 20 // the whole argv and env of one request
)

// Sandbox is what the server needs of a sandbox: the backend it confines
// with and a session of the deployment's policy. A *sandbox.Local (the
// root's ringfence.Local, wired in by cmd/ringfence) satisfies it; the
// server never depends on the public facade above it.
type Sandbox interface {
	Backend() string
	Session(ctx context.Context, req policy.Request, opts ...sandbox.SessionOptions) (*sandbox.Session, error)
}

// Options configure a Server.
type Options struct {
	// Sandbox runs every process; it needs a backend with sessions.
	Sandbox Sandbox
	// Root is the sandbox root on the host (the Sandbox's Config.Root) and
	// MountPath what commands see it as; both are accepted in a cwd.
	Root, MountPath string
	// ChunkSize bounds one stdout/stderr event of Start; zero is DefaultChunkSize.
	ChunkSize int
	// MaxProcesses bounds the processes running at once; zero is DefaultMaxProcesses.
	MaxProcesses int
	// Timeout is each process's wall-clock limit; zero or negative is none
	// (Start serves long-running processes).
	Timeout time.Duration
}

// Server implements process.v1.ProcessService over one ringfence session:
// every process is started by the session's already-confined init, so all
// of them share one view, one /tmp and one loopback (a server started by
// one call answers the next), under the deployment's policy.
type Server struct {
	pb.UnimplementedProcessServiceServer
	o Options

	mu       sync.Mutex
	ses      *sandbox.Session
	byID     map[int32]*entry            // processes of Start, by the id clients hold
	live     map[*sandbox.Process]string // every running process (Start and Execute)
	stopping bool
	drained  chan struct{} // closed when live empties while stopping
	nextID   atomic.Int32
}

// entry is one process a client can address.
type entry struct {
	p     *sandbox.Process
	tty   bool
	stdin stdinGate // one WriteStdin in flight (stdin.go)
}

// New makes a Server. It starts nothing: the session is opened by the
// first call (and again if it ended, e.g. over its memory limit).
func New(o Options) (*Server, error) {
	if o.Sandbox == nil || o.Root == "" {
		return nil, errors.New("sandboxd: a sandbox and its root are required")
	}
	if b := o.Sandbox.Backend(); !sandbox.SessionsOn(b) {
		return nil, fmt.Errorf("sandboxd: the process service needs sessions (the linux or landlock backend); this host selected %q — see ringfence doctor", b)
	}
	if o.ChunkSize <= 0 {
		o.ChunkSize = DefaultChunkSize
	}
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = DefaultMaxProcesses
	}
	return &Server{o: o, byID: map[int32]*entry{}, live: map[*sandbox.Process]string{}}, nil
}

// Warm opens the session now, so the first call does not pay for it and
// a host that cannot confine is found at start, not at the first call.
func (s *Server) Warm(ctx context.Context) error {
	_, err := s.session(ctx)
	return err
}

// session returns the live session, opening one if there is none.
func (s *Server) session(ctx context.Context) (*sandbox.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return nil, status.Error(codes.Unavailable, "the server is shutting down")
	}
	if s.ses != nil {
		select {
		case <-s.ses.Done():
			s.ses = nil // ended (a limit breached): a fresh one below
		default:
			return s.ses, nil
		}
	}
	ses, err := s.o.Sandbox.Session(ctx, policy.Request{}, sandbox.SessionOptions{
		IdleTimeout: -1, MaxProcesses: s.o.MaxProcesses, OutputKept: DefaultOutputKept})
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "opening the confined session: %v", err)
	}
	s.ses = ses
	return ses, nil
}

// start starts c in the session, retrying once in a fresh session when
// the one it had ended meanwhile; p is tracked for shutdown until forget.
func (s *Server) start(ctx context.Context, c sandbox.Cmd) (*sandbox.Process, error) {
	for attempt := 0; ; attempt++ {
		ses, err := s.session(ctx)
		if err != nil {
			return nil, err
		}
		p, err := ses.Start(ctx, c)
		switch {
		case err == nil:
			s.mu.Lock()
			stopping := s.stopping
			s.live[p] = ""
			s.mu.Unlock()
			if stopping { // shutdown began while it started: it is swept too
				_ = p.Signal(syscall.SIGKILL)
			}
			return p, nil
		case errors.Is(err, sandbox.ErrSessionClosed) && attempt == 0:
			continue
		case errors.Is(err, sandbox.ErrSessionFull):
			return nil, status.Errorf(codes.ResourceExhausted, "%v", err)
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return nil, status.FromContextError(err).Err()
		default:
			return nil, status.Errorf(codes.Internal, "starting the process: %v", err)
		}
	}
}

// forget drops p once it ended and was answered.
func (s *Server) forget(p *sandbox.Process, id int32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, p)
	if id != 0 {
		delete(s.byID, id)
	}
	if s.stopping && len(s.live) == 0 && s.drained != nil {
		close(s.drained)
		s.drained = nil
	}
}

// register gives p an id clients can address (Start's InitEvent).
func (s *Server) register(p *sandbox.Process, tty bool) int32 {
	for {
		id := s.nextID.Add(1)
		if id <= 0 { // wrapped after 2^31 starts: ids need only be unique among live ones
			s.nextID.CompareAndSwap(id, 0)
			continue
		}
		s.mu.Lock()
		if _, taken := s.byID[id]; !taken {
			s.byID[id] = &entry{p: p, tty: tty}
			s.mu.Unlock()
			return id
		}
		s.mu.Unlock()
	}
}

func (s *Server) lookup(id int32) (*entry, error) {
	s.mu.Lock()
	e := s.byID[id]
	s.mu.Unlock()
	if e == nil {
		return nil, status.Errorf(codes.NotFound, "process %d not found", id)
	}
	return e, nil
}

// Shutdown refuses new processes, sends SIGTERM to every running one,
// waits up to grace for them to end, then ends the session (SIGKILL to
// whatever is left, with its init). It returns once the session is gone.
func (s *Server) Shutdown(ctx context.Context, grace time.Duration) {
	s.mu.Lock()
	s.stopping = true
	var procs []*sandbox.Process
	for p := range s.live {
		procs = append(procs, p)
	}
	drained := make(chan struct{})
	if len(s.live) == 0 {
		close(drained)
	} else {
		s.drained = drained
	}
	ses := s.ses
	s.mu.Unlock()
	for _, p := range procs {
		_ = p.Signal(syscall.SIGTERM)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
	case <-ctx.Done():
	}
	if ses != nil {
		_ = ses.Close() // SIGKILL to the init: every process left ends with it
	}
}
