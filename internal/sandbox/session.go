package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/backends"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// A Session is one confined environment that lives until it is closed: one
// init in its namespaces (one view, one network namespace — loopback
// between its processes works across calls —, one private /tmp, one home
// layer, one cgroup with the session's limits). Each Start is forked and
// executed by that already-confined init, so a process gets exactly the
// confinement a one-shot Exec gets, at about the cost of a bare exec.
// Processes started in the background outlive the call that started them.
//
// A session is tied to the policy it was resolved to: a Cmd whose own
// request resolves to a different policy (an approval widened it, a
// request narrowed it) is refused with ErrSessionPolicy and never runs in
// it; the caller runs it one-shot (ExecRequest) or in a session of its own.
//
// On the linux backend the session is one init, as above. On the landlock
// backend (no namespaces: the common container whose seccomp profile
// refuses them) a session is a set of one-shot runs instead: each Start is
// its own confined run through Exec's pipeline (the same policy,
// confinement, supervisor and classification), with the Process API
// intact; processes share the sandbox's private TMPDIR (files), not a pid
// or network namespace (inet sockets are the host's, under the policy's
// network mode: refused under deny and loopback; a Unix socket another
// process listens on is refused by the run's supervisor). A
// child a process puts in the background (sh -c 'srv &') ends with its
// run; a server is started as a process of its own (Timeout < 0). Shared reports which kind a session is, Reasons what differs.
type Session struct {
	l    *Local
	pol  *policy.Policy
	opts SessionOptions
	sys  sessionSys      // the platform part
	one  *oneShot        // set: a session of one-shot runs (no init to share)
	nc   outcome.Context // narration context, made once
	env  []string        // the environment every process starts from

	mu      sync.Mutex
	procs   []*Process // in start order; ended ones beyond keptEnded pruned
	byID    map[uint64]*Process
	running int
	nextID  uint64
	closed  bool
	closeCh chan struct{}
	idle    *time.Timer
	err     error // why the session ended, once it has
}

// SessionOptions bound a session.
type SessionOptions struct {
	// IdleTimeout closes the session once no process has run for this
	// long; zero is DefaultSessionIdle, negative never.
	IdleTimeout time.Duration
	// MaxProcesses bounds the processes running at once; zero is
	// DefaultSessionProcesses. Start refuses past it.
	MaxProcesses int
	// OutputKept is how many recent bytes of each stream of each process
	// are kept; zero is DefaultOutputKept.
	OutputKept int
}

// oneShot is the state of a session of one-shot runs: every Start is a run
// of its own through Exec's pipeline (run.Run on the backend's Cmd), so
// there is no init to share and nothing of the session outlives its runs.
type oneShot struct {
	ctx    context.Context // ended by Close: every run still going is stopped
	cancel context.CancelFunc
	runs   sync.WaitGroup // one per started run, done once run.Run returned
}

// Session defaults.
const (
	DefaultSessionIdle      = 30 * time.Minute
	DefaultSessionProcesses = 64
	DefaultOutputKept       = 256 << 10
)

// Cmd is one command to start in a session.
type Cmd struct {
	Argv []string
	// Dir is the working directory as a model path ("" is the workspace).
	Dir string
	// Env is added to the allow-listed environment, as ExecOptions.Env.
	Env map[string]string
	// Stdin, when set, is copied to the process and its stdin then closed;
	// nil leaves stdin open for Process.Write until CloseStdin.
	Stdin io.Reader
	// Stdout and Stderr, when set, receive the output live.
	Stdout, Stderr io.Writer
	// Terminal, when set, runs the process on a new pseudo-terminal of
	// this size (stdin, stdout and stderr all on it; its output is Stdout).
	Terminal *WindowSize
	// Timeout stops the process (SIGTERM to its group, SIGKILL after the
	// sandbox's KillAfter); zero is the sandbox's default Timeout, negative
	// none (a server that runs until stopped or the session ends).
	Timeout time.Duration
	// Request, when set, is the call's own policy request: it is resolved,
	// and a policy that differs from the session's is refused
	// (ErrSessionPolicy). nil runs under the session's policy.
	Request *policy.Request
}

// WindowSize is a terminal's size.
type WindowSize struct{ Rows, Cols uint16 }

// Errors of sessions.
var (
	// ErrSessionPolicy: the call's resolved policy is not the session's.
	ErrSessionPolicy = errors.New("ringfence: the call's policy differs from the session's; run it one-shot or in a session of its own")
	ErrSessionClosed = errors.New("ringfence: the session is closed")
	// ErrSessionUnsupported: the selected backend has no sessions.
	ErrSessionUnsupported = errors.New("ringfence: sessions need the linux backend")
	ErrSessionFull        = errors.New("ringfence: the session runs as many processes as it may")
)

// PolicyMismatchError is ErrSessionPolicy with what differed.
type PolicyMismatchError struct{ Differs []string }

func (e *PolicyMismatchError) Error() string {
	return fmt.Sprintf("%v (differs in: %v)", ErrSessionPolicy, e.Differs)
}

// Unwrap makes errors.Is(err, ErrSessionPolicy) hold.
func (e *PolicyMismatchError) Unwrap() error { return ErrSessionPolicy }

// policyDiff names the fields in which b differs from a. Cwd is not part
// of a confinement (each process has its own working directory); every
// other field is, exactly.
func policyDiff(a, b *policy.Policy) []string {
	va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
	var out []string
	for i := 0; i < va.NumField(); i++ {
		name := va.Type().Field(i).Name
		if name == "Cwd" {
			continue
		}
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, name)
		}
	}
	return out
}

// hasLimits: the session has memory or process limits (a cgroup or a
// monitor that may stop it).
func (s *Session) hasLimits() bool {
	return s.pol.Limits.MemoryBytes > 0 || s.pol.Limits.Processes > 0
}

// OneShotSessionReasons say, in every result of a one-shot session's
// process (Enforcement.Reasons) and in Session.Reasons, what such a
// session does not share.
var OneShotSessionReasons = []string{
	"session partial: each process is its own confined run (no namespaces on this backend): processes share the sandbox's private TMPDIR, not a pid namespace, a private /tmp or a network namespace",
	"session partial: processes do not reach each other over sockets: inet sockets are the host's, under the policy's network mode (refused under deny and loopback), and a Unix socket listened on by another process is refused; they share files in TMPDIR",
}

// Shared reports whether the session's processes share one init (its
// namespaces, /tmp and cgroup); false for a session of one-shot runs.
func (s *Session) Shared() bool { return s.one == nil }

// markEnded records, once, that the session ended and why, and stops its
// idle timer; false when it had ended already (nothing more to tear
// down). The caller holds s.mu.
func (s *Session) markEnded(why error) bool {
	if s.closed {
		return false
	}
	s.closed, s.err = true, why
	if s.idle != nil {
		s.idle.Stop()
	}
	return true
}

// Reasons say what the session does not share, when it is one-shot runs.
func (s *Session) Reasons() []string {
	if s.one == nil {
		return nil
	}
	return append([]string(nil), OneShotSessionReasons...)
}

// SessionsOn reports whether a Local on backend has sessions: linux (one
// shared init) or landlock (one-shot runs, Shared false).
// The backend declares it (confine.Traits.Sessions); an unknown name has none.
func SessionsOn(backend string) bool {
	return backends.TraitsOf(backend).Sessions != confine.SessionsNone
}

// Policy is the session's resolved policy.
func (s *Session) Policy() *policy.Policy { return s.pol }

// Processes are the session's processes, running or ended, in start order.
func (s *Session) Processes() []*Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Process(nil), s.procs...)
}

// Done is closed once the session has ended (Close, idle timeout, or its
// init died); Err then says why.
func (s *Session) Done() <-chan struct{} { return s.closeCh }

// Err is why the session ended, or nil while it runs.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Ring keeps the most recent bytes of a stream and counts the rest.
type Ring struct {
	mu    sync.Mutex
	buf   []byte
	size  int
	total int64
}

// NewRing keeps size bytes.
func NewRing(size int) *Ring {
	if size <= 0 {
		size = DefaultOutputKept
	}
	return &Ring{size: size}
}

// Write keeps p's tail; it never fails.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total += int64(len(p))
	if len(p) >= r.size {
		r.buf = append(r.buf[:0], p[len(p)-r.size:]...)
		return len(p), nil
	}
	if over := len(r.buf) + len(p) - r.size; over > 0 {
		r.buf = append(r.buf[:0], r.buf[over:]...)
	}
	r.buf = append(r.buf, p...)
	return len(p), nil
}

// Snapshot is what is kept and how many earlier bytes were dropped.
func (r *Ring) Snapshot() (kept []byte, dropped int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.buf...), r.total - int64(len(r.buf))
}

// Since returns what was written from offset off on (a count of bytes
// since the start), the offset to ask from next time, and how many bytes
// after off were dropped before they could be read.
func (r *Ring) Since(off int64) (data []byte, next int64, lost int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	first := r.total - int64(len(r.buf))
	if off < first {
		lost, off = first-off, first
	}
	if off > r.total {
		off = r.total
	}
	return append([]byte(nil), r.buf[off-first:]...), r.total, lost
}

// Total is how many bytes were written in all.
func (r *Ring) Total() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}
