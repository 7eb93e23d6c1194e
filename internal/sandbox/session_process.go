package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
)

// Process is one command started in a session.
type Process struct {
	ID    uint64   // unique within its session, never reused
	Argv  []string // as started
	s     *Session
	begin time.Time

	stdin    io.WriteCloser // the pipe (to the terminal, with one)
	terminal bool           // it runs on a terminal the init opened and relays
	Stdout   *Ring          // recent output (a terminal's all lands here)
	Stderr   *Ring

	started    chan struct{} // closed once started or failed
	done       chan struct{} // closed once ended (or never started)
	outDone    chan struct{} // closed once every output stream reached EOF
	outLeft    atomic.Int32  // output streams not at EOF yet
	closeOnEnd io.Closer     // the stdin pipe, closed once the process ended
	outFiles   []*os.File    // the output streams' read ends (copyOut), for Wait's deadline

	mu       sync.Mutex
	pid      int                 // in the session's pid namespace (one-shot: the run's root, on the host)
	res      *ExecResult         // one-shot: the run's own result, once it ended
	resizeC  chan run.WindowSize // one-shot with a terminal: to its relay
	sum      status.Summary
	timedOut bool
	aborted  bool // the session ended under it
	ended    time.Time
	timer    *time.Timer
}

// Pid is the process's pid inside the session (0 before it started).
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// Running reports whether the process has started and not ended.
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return p.Pid() != 0
	}
}

// Done is closed once the process has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Write sends b to the process's stdin (its terminal, with one).
func (p *Process) Write(b []byte) (int, error) {
	if p.stdin == nil {
		return 0, errors.New("ringfence: the process's stdin is not writable (Cmd.Stdin was given, or it is closed)")
	}
	return p.stdin.Write(b)
}

// CloseStdin ends the process's input: its stdin pipe is closed, or, on a
// terminal, end-of-file (Ctrl-D) is typed.
func (p *Process) CloseStdin() error {
	if p.stdin == nil {
		return nil // Cmd.Stdin was given: its end is the end of input
	}
	if p.terminal {
		_, err := p.stdin.Write([]byte{4})
		return err
	}
	return p.stdin.Close()
}

// Signal sends sig to the process's group (itself and what it started that
// stayed in its group), while it runs.
func (p *Process) Signal(sig syscall.Signal) error {
	if !p.Running() {
		return errors.New("ringfence: the process is not running")
	}
	return p.s.signal(p.ID, sig)
}

// Resize changes the process's terminal size; the kernel tells its
// foreground group (SIGWINCH).
func (p *Process) Resize(size WindowSize) error {
	if !p.terminal {
		return errors.New("ringfence: the process has no terminal")
	}
	if !p.Running() {
		return errors.New("ringfence: the process is not running")
	}
	return p.s.resize(p.ID, size)
}

// drainGrace is how long Wait still waits for more output once the
// process ended: a background child that kept the output open must not
// hold Wait. What the process itself wrote before it ended is read in
// full however long that takes (copyOut): the grace is not a bound on
// reading what is already there — on a loaded host, the reading goroutine
// may not run for longer than the grace.
const drainGrace = 200 * time.Millisecond

// drainBound is the most Wait waits for the output after the grace: only
// a live writer (Cmd.Stdout) that does not return holds the reading
// goroutine that long; the output kept so far is returned.
const drainBound = 10 * time.Second

// Wait waits for the process to end and classifies and narrates it as
// Exec does. Output is the recent part kept (Truncated says how much was
// seen in all when some was dropped). A ctx that ends first returns its
// error; the process runs on.
func (p *Process) Wait(ctx context.Context) (*ExecResult, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if p.s.one != nil {
		return p.oneShotResult(), nil
	}
	p.mu.Lock()
	for _, f := range p.outFiles {
		_ = f.SetReadDeadline(time.Now().Add(drainGrace)) // closed already: at EOF
	}
	p.mu.Unlock()
	t := time.NewTimer(drainGrace + drainBound)
	defer t.Stop()
	select {
	case <-p.outDone:
	case <-t.C:
	}
	if p.killed() && p.s.hasLimits() {
		// A SIGKILL under the session's limits may be the kernel's (an
		// OOM kill); the session's run then stops the session for the
		// breach within a sample or two, and the breach is the reason.
		select {
		case <-p.s.sys.runDone:
		case <-time.After(3 * run.SampleInterval):
		}
	}
	return p.result(), nil
}

// oneShotResult is a one-shot session's process's result: its run's.
func (p *Process) oneShotResult() *ExecResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.res == nil { // never: the run's goroutine sets it before the end
		return &ExecResult{RunnerError: "ringfence: the run left no result"}
	}
	r := *p.res
	return &r
}

// killed: the process ended by SIGKILL.
func (p *Process) killed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sum.Exit != nil && p.sum.Exit.Signal == "SIGKILL"
}

// result builds the ExecResult from the process's record.
func (p *Process) result() *ExecResult {
	p.mu.Lock()
	sum, timedOut, aborted, ended := p.sum, p.timedOut, p.aborted, p.ended
	p.mu.Unlock()
	out, outDropped := p.Stdout.Snapshot()
	errb, errDropped := p.Stderr.Snapshot()
	res := &run.Result{
		Stdout: out, Stderr: errb, Status: sum, StatusChannel: true,
		TimedOut: timedOut, Aborted: aborted && !timedOut,
		DurationMs: ended.Sub(p.begin).Milliseconds(), TreeKill: "pid-namespace",
	}
	if sum.Exit != nil && !timedOut {
		res.ExitCode, res.Signal = sum.Exit.ExitCode, sum.Exit.Signal
	}
	if aborted || (sum.Exit != nil && sum.Exit.Signal == "SIGKILL") {
		// The session ended under it, or it was killed as the session
		// was stopped: a breach of the session's limits (its cgroup) is
		// why, when there was one.
		if b := p.s.sys.breach(); b != outcome.BreachNone {
			res.Breach, res.Aborted = b, false
		}
	}
	if outDropped > 0 || errDropped > 0 {
		res.Truncated = &run.Truncated{}
		if outDropped > 0 {
			res.Truncated.Stdout = p.Stdout.Total()
		}
		if errDropped > 0 {
			res.Truncated.Stderr = p.Stderr.Total()
		}
	}
	ro := run.Options{MaxStdout: int64(p.s.opts.OutputKept), MaxStderr: int64(p.s.opts.OutputKept),
		KeepRunningPastCeiling: true}
	return p.s.l.resultIn(p.s.nc, p.s.sys.resultCmd(), p.s.pol, ro, res)
}

// finish records the process's end, once; it reports whether this call did.
func (p *Process) finish(sum status.Summary, aborted bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		return false
	default:
	}
	p.sum, p.aborted, p.ended = sum, aborted, time.Now()
	if p.timer != nil {
		p.timer.Stop()
	}
	p.markStartedLocked()
	close(p.done)
	if p.closeOnEnd != nil {
		_ = p.closeOnEnd.Close()
	}
	return true
}

// markStartedLocked closes started once (p.mu held).
func (p *Process) markStartedLocked() {
	select {
	case <-p.started:
	default:
		close(p.started)
	}
}
