package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/reaper"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
)

// drainGrace bounds how long output is still read once the tree is dead:
// a process that escaped every kill must not hang the supervisor.
const drainGrace = 2 * time.Second

// ErrReaperNotDispatched is returned by Run when Options.Reaper would
// re-execute a binary that never called entry.Dispatch (no carried image
// holds the reaper), and inside a process that was started as the reaper
// but whose binary does not dispatch: it would run its ordinary main — for
// a test binary the whole suite, starting reapers again without end.
var ErrReaperNotDispatched = errors.New("this process was started as the run reaper but its binary does not dispatch its entry points (internal/entry)")

// dispatched says whether this binary dispatches its entry points, so it
// may be re-executed as the reaper (a variable for the misuse test).
var dispatched = entry.Dispatching

// Run starts c and supervises it to the end. The error is non-nil only
// when the runner could not be started at all (or its Setup failed); every
// outcome of a started command is a Result.
func Run(ctx context.Context, c *confine.Cmd, o Options) (*Result, error) {
	if os.Getenv(reaper.Env) != "" {
		return nil, &StartError{Err: ErrReaperNotDispatched}
	}
	begin := time.Now()
	s := &session{c: c, o: &o, ceiling: make(chan struct{})}
	defer s.release()
	if err := s.prepare(); err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	s.supervise(ctx, begin)
	return s.result(begin), nil
}

// session is the state of one Run.
type session struct {
	c   *confine.Cmd
	o   *Options
	cmd *exec.Cmd
	p   *proc

	group     bool        // the root leads its own process group
	runner    bool        // the root is a runner (an init, a shim, the reaper), not the command
	term      *ptySession // the new terminal, with Options.Terminal
	lim       limiter
	resources Resources

	out, errs     *capture
	readers       []*os.File  // parent ends, closed at release
	pipes         [2]*os.File // stdout and stderr read ends
	childEnds     []*os.File  // child ends, closed once started
	gate          *os.File    // reaper start gate (write end), or nil
	copies        sync.WaitGroup
	statusSummary chan status.Summary

	overOnce sync.Once
	ceiling  chan struct{}

	mu    sync.Mutex
	why   cause
	usage outcome.Usage
	post  outcome.Breach // a breach first seen after the command ended
}

// start forks the runner, places it, runs Setup and opens the gate.
func (s *session) start() error {
	// A runner is born inside its group (the thread visit, see
	// cgroup.enter): moving a started process costs an RCU grace period
	// that the visit does not. Not the reaper: it is the whole binary, whose
	// runtime starts threads while it waits at its gate, and born inside
	// they would count against a small process bound and be refused
	// (TestConcurrentRunsNeverKillTheSupervisor/reaper-with-limits). It is
	// placed after its start instead, and runs nothing until admit opens
	// its gate.
	var visit limiter
	if s.gate == nil {
		visit = s.lim
	}
	p, err := spawn(s.cmd, visit)
	closeAll(s.childEnds)
	s.childEnds = nil
	if err != nil {
		return &StartError{Err: err}
	}
	s.p = p
	if err := s.admit(); err != nil {
		killTree(p, s.group)
		<-p.done
		s.finishLimiter()
		return &StartError{Err: err}
	}
	s.startCopies()
	if s.o.OnStart != nil {
		s.o.OnStart(p.pid)
	}
	return nil
}

// admit puts the started runner under its limits before anything of the
// command runs: the linux init waits for its spec (Setup) or, gated
// (Stage), for its admission, the reaper for its gate. A plain Cmd with
// none is already running (a known gap).
//
// A gated runner gets its spec before it is placed, so it builds its
// confinement meanwhile (placing is a check when it was born inside, a
// move costing an RCU grace period when not: see cgroup.place). It is
// admitted only once placed, and never when placing it failed.
func (s *session) admit() error {
	var admitRunner func() error
	if s.c.Stage != nil && s.lim != nil {
		var err error
		if admitRunner, err = s.c.Stage(s.p.pid); err != nil {
			return fmt.Errorf("runner setup: %w", err)
		}
	}
	if s.lim != nil {
		// ESRCH: a plain Cmd (no Setup, no gate), or a gated runner that
		// failed its set-up, that already ended.
		if err := s.lim.place(s.p.pid); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("placing the runner under its limits: %w", err)
		}
	}
	switch {
	case admitRunner != nil:
		if err := admitRunner(); err != nil {
			return fmt.Errorf("runner setup: %w", err)
		}
	case s.c.Setup != nil:
		if err := s.c.Setup(s.p.pid); err != nil {
			return fmt.Errorf("runner setup: %w", err)
		}
	}
	if s.gate != nil {
		_, err := s.gate.Write([]byte{1})
		_ = s.gate.Close()
		s.gate = nil
		return err
	}
	return nil
}

// stop records why the tree is stopped (the first cause wins) and kills it.
func (s *session) stop(c cause) {
	s.mu.Lock()
	if !s.why.stopped() {
		s.why = c
	}
	s.mu.Unlock()
	killTree(s.p, s.group)
}

// stopGently records c and stops the tree the way timeout(1) -k does:
// SIGTERM to every process of the command's tree, then SIGKILL to all of
// it once the grace has passed, the root has ended, or a breach or an
// output ceiling says waiting is no longer safe.
func (s *session) stopGently(c cause, breach <-chan outcome.Breach) {
	if s.o.KillAfter <= 0 {
		s.stop(c)
		return
	}
	s.mu.Lock()
	if !s.why.stopped() {
		s.why = c
	}
	s.mu.Unlock()
	terminateTree(s.p, s.runner)
	grace := time.NewTimer(s.o.KillAfter)
	defer grace.Stop()
	select {
	case <-s.p.done:
	case <-grace.C:
	case <-breach:
	case <-s.ceiling:
	}
	killTree(s.p, s.group)
}

// supervise waits for the end, a deadline, a cancellation, a breach or an
// output ceiling, whichever comes first, and then for the tree to be gone.
func (s *session) supervise(ctx context.Context, begin time.Time) {
	var timer <-chan time.Time
	d, dc := deadline(s.o)
	if d > 0 {
		t := time.NewTimer(d - time.Since(begin))
		defer t.Stop()
		timer = t.C
	}
	breach, stopWatch := s.watch()
	select {
	case <-s.p.done:
	case <-ctx.Done():
		s.stopGently(ctxCause(ctx.Err()), breach)
	case <-timer:
		s.stopGently(dc, breach)
	case b := <-breach:
		s.stop(cause{breach: b})
	case <-s.ceiling:
		s.stop(cause{breach: outcome.BreachOutput})
	}
	<-s.p.done
	stopWatch()
	killLeftovers(s.p, s.group)
	s.finishLimiter()
	s.waitCopies()
}

// finishLimiter takes the last sample, ends every member the cgroup still
// lists and removes the group.
func (s *session) finishLimiter() {
	if s.lim == nil {
		return
	}
	last := s.lim.sample()
	s.mu.Lock()
	addUsage(&s.usage, last)
	if s.resources != ResourcesNone {
		_, quota := s.lim.(*cgroup)
		s.post = breachOf(last, s.o.Limits, quota)
	}
	s.mu.Unlock()
	killMembers(s.lim.members)
	s.lim.remove()
	s.lim = nil
}

// watch samples the limiter every SampleInterval and reports a breach.
func (s *session) watch() (<-chan outcome.Breach, func()) {
	breach := make(chan outcome.Breach, 1)
	if s.lim == nil || s.resources == ResourcesNone {
		return breach, func() {}
	}
	_, quota := s.lim.(*cgroup)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(SampleInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			smp := s.lim.sample()
			s.mu.Lock()
			addUsage(&s.usage, smp)
			s.mu.Unlock()
			if b := breachOf(smp, s.o.Limits, quota); b != outcome.BreachNone {
				breach <- b
				return
			}
		}
	}()
	return breach, func() { close(quit); <-done }
}

// waitCopies waits for the output and status readers. After drainGrace
// (something that escaped still holds a write end) each reader takes what
// its pipe holds and stops (graceReader): the tree's output is never lost.
func (s *session) waitCopies() {
	done := make(chan struct{})
	go func() { s.copies.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainGrace):
		endGrace(s.readers)
		<-done
	}
}

// result assembles the facts.
func (s *session) result(begin time.Time) *Result {
	r := &Result{TreeKill: s.treeKill(), Resources: s.resources, DurationMs: time.Since(begin).Milliseconds()}
	var t Truncated
	r.Stdout, t.Stdout = s.out.result()
	r.Stderr, t.Stderr = s.errs.result()
	if t != (Truncated{}) {
		r.Truncated = &t
	}
	var sum *status.Summary
	if s.statusSummary != nil {
		v := <-s.statusSummary
		r.Status, sum, r.StatusChannel = v, &v, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	code, sig := s.p.waitFacts()
	r.ExitCode, r.Signal = exitFacts(s.why, sum, code, sig)
	r.TimedOut, r.Aborted, r.Breach, r.Usage = s.why.timedOut, s.why.aborted, s.why.breach, s.usage
	if r.Breach == outcome.BreachNone {
		r.Breach = s.post
	}
	return r
}

func (s *session) treeKill() confine.TreeKill {
	if s.c.TreeKill == confine.KillPidNamespace || inPidNamespace(s.c.SysProcAttr) {
		return confine.KillPidNamespace
	}
	return confine.KillProcessGroup
}

// release closes everything the session opened and runs the backend's
// Cleanup once the tree is gone.
func (s *session) release() {
	if s.term != nil {
		s.term.release() // the user's terminal first: whatever else fails
	}
	if s.lim != nil { // never started: nothing can be inside
		s.lim.remove()
	}
	closeAll(s.childEnds)
	closeAll(s.readers)
	if s.c.Status != nil {
		_ = s.c.Status.Close()
	}
	if s.gate != nil {
		_ = s.gate.Close()
	}
	if s.c.Cleanup != nil {
		s.c.Cleanup()
	}
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}
