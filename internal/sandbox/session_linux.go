package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// sessionSys is the session's init: its Cmd, control socket and run.
type sessionSys struct {
	cmd     *confine.Cmd
	ctl     *os.File
	cancel  context.CancelFunc
	runDone chan struct{} // closed once run.Run returned (the tree is gone)
	ready   chan error    // the init's first report, or why there is none
	sendMu  sync.Mutex
	runRes  *run.Result
	runErr  error
}

// resultCmd is the Cmd a process's result is classified against: the
// session's backend, enforcement and dialect. The network log is the
// session's as a whole, so it is not told as one process's.
func (y *sessionSys) resultCmd() *confine.Cmd {
	c := *y.cmd
	c.NetEvents = nil
	return &c
}

// breach is the limit the session's run was stopped for, once it ended.
func (y *sessionSys) breach() outcome.Breach {
	select {
	case <-y.runDone:
		if y.runRes != nil {
			return y.runRes.Breach
		}
	default:
	}
	return outcome.BreachNone
}

// Session starts a session under the policy resolved from req (which may
// only narrow the deployment's defaults, or widen them with a minted
// approval). It returns once the init has confined itself and serves.
func (l *Local) Session(ctx context.Context, req policy.Request, opts ...SessionOptions) (*Session, error) {
	var o SessionOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultSessionIdle
	}
	if o.MaxProcesses <= 0 {
		o.MaxProcesses = DefaultSessionProcesses
	}
	if o.OutputKept <= 0 {
		o.OutputKept = DefaultOutputKept
	}
	req.Cwd = l.defaults.Root
	pol, err := l.Policy(req)
	if err != nil {
		return nil, err
	}
	if !pol.Confining() {
		return nil, fmt.Errorf("%w (danger-full-access is not confined)", ErrSessionUnsupported)
	}
	switch l.traits().Sessions {
	case confine.SessionsRuns:
		return l.oneShotSession(pol, o, l.env(nil)), nil
	case confine.SessionsInit:
	default:
		return nil, fmt.Errorf("%w (this sandbox's backend: %q)", ErrSessionUnsupported, l.Backend())
	}
	env := l.env(nil)
	cmd, err := l.provider.Confine(confine.Request{Dir: l.defaults.Root, Env: env, Policy: pol,
		MountPath: l.cfg.MountPath, Home: l.home, Session: true})
	if err != nil {
		return nil, err
	}
	if cmd.Control == nil {
		// A backend without sessions confined a placeholder: never start it.
		if cmd.Cleanup != nil {
			cmd.Cleanup()
		}
		return nil, fmt.Errorf("%w (selected: %s)", ErrSessionUnsupported, cmd.Backend)
	}
	s := &Session{l: l, pol: pol, opts: o, byID: map[uint64]*Process{}, closeCh: make(chan struct{}),
		nc: l.narration(pol), env: env}
	s.sys = sessionSys{cmd: cmd, ctl: cmd.Control, runDone: make(chan struct{}), ready: make(chan error, 1)}
	// The whole session is one run: its memory and process limits are the
	// session's cgroup's; wall clock and CPU time are per process (Cmd.Timeout).
	lim := pol.Limits
	lim.WallClock, lim.CPUTime = 0, 0
	runCtx, cancel := context.WithCancel(context.Background())
	s.sys.cancel = cancel
	go func() {
		res, err := run.Run(runCtx, cmd, run.Options{Limits: lim})
		s.sys.runRes, s.sys.runErr = res, err
		close(s.sys.runDone)
	}()
	go s.readReports()
	select {
	case err = <-s.sys.ready:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		s.end(err)
		<-s.sys.runDone
		return nil, err
	}
	s.armIdle()
	go func() { <-s.sys.runDone; s.end(s.initEnded()) }()
	return s, nil
}

// Start starts c in the session. It returns once the init has executed
// the program (or refused it: the Process's Wait then says why, as Exec
// would, e.g. not-found).
func (s *Session) Start(ctx context.Context, c Cmd) (*Process, error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return nil, errors.New("ringfence: empty command")
	}
	if c.Request != nil {
		r := *c.Request
		r.Cwd = s.l.defaults.Root
		// Preview first: a refused call keeps its single-call approval
		// for the one-shot run its caller then makes.
		pol, err := policy.Preview(r, s.l.defaults)
		if err != nil {
			return nil, err
		}
		if d := policyDiff(s.pol, pol); len(d) > 0 {
			return nil, &PolicyMismatchError{Differs: d}
		}
		if _, err := s.l.Policy(r); err != nil {
			return nil, err // spent meanwhile by another call
		}
	}
	host, err := s.l.hostDir(c.Dir)
	if err != nil {
		return nil, err
	}
	dir := s.l.modelPath(host)
	p := &Process{Argv: append([]string(nil), c.Argv...), s: s, begin: time.Now(),
		Stdout: NewRing(s.opts.OutputKept), Stderr: NewRing(s.opts.OutputKept),
		started: make(chan struct{}), done: make(chan struct{}), outDone: make(chan struct{})}
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, ErrSessionClosed
	case s.running >= s.opts.MaxProcesses:
		s.mu.Unlock()
		return nil, fmt.Errorf("%w (%d)", ErrSessionFull, s.opts.MaxProcesses)
	}
	s.nextID++
	p.ID = s.nextID
	s.byID[p.ID] = p
	s.procs = append(s.procs, p)
	s.running++
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
	if s.one != nil {
		return s.startOneShot(ctx, p, c, host)
	}
	child, err := p.openIO(c)
	if err == nil {
		m := &initproc.ControlMsg{Op: initproc.OpStart, ID: p.ID, Argv: c.Argv,
			Env: withEnv(s.env, c.Env), Dir: dir}
		if c.Terminal != nil {
			m.Terminal = winsize(*c.Terminal)
		}
		err = s.send(m, child)
	}
	for _, f := range child {
		f.Close()
	}
	if err != nil {
		if p.finish(status.Summary{Failure: &status.Event{Kind: status.Failed, Stage: "start", Reason: status.SetupFailed}}, true) {
			s.processEnded()
		}
		s.forget(p)
		return nil, fmt.Errorf("ringfence: starting in the session: %w", err)
	}
	select {
	case <-p.started:
	case <-ctx.Done():
		// It may still start: it is the session's now, and is stopped.
		_ = s.signal(p.ID, syscall.SIGKILL)
		return nil, ctx.Err()
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = s.l.cfg.Timeout // negative: none
	}
	if timeout > 0 {
		p.mu.Lock()
		p.timer = time.AfterFunc(timeout, func() { s.stopForTimeout(p) })
		p.mu.Unlock()
	}
	return p, nil
}

// openIO makes the process's streams and returns the child's ends (its 0,
// 1 and 2), to be passed to the init and closed here.
func (p *Process) openIO(c Cmd) ([]*os.File, error) {
	if c.Terminal != nil {
		// The terminal itself is opened by the init, in the view's own
		// devpts (initproc: startOnTerminal); here are the pipes it
		// relays: input to it, its output back (its one stream).
		inP, inC, err := pipeEnds(true) // parent writes, child reads
		if err != nil {
			return nil, err
		}
		outR, outW, err := pipeEnds(false)
		if err != nil {
			closeFiles(inP, inC)
			return nil, err
		}
		p.terminal, p.stdin = true, inP
		if c.Stdin != nil {
			go func() { _, _ = io.Copy(inP, c.Stdin) }()
		}
		p.mu.Lock()
		p.closeOnEnd = inP
		p.mu.Unlock()
		p.copyOut(copySpec{outR, p.Stdout, c.Stdout})
		return []*os.File{inC, outW, outW}, nil
	}
	var ends [3][2]*os.File // [i][0] the parent's end, [i][1] the child's
	for i := range ends {
		parent, child, err := pipeEnds(i == 0)
		if err != nil {
			for _, e := range ends[:i] {
				closeFiles(e[0], e[1])
			}
			return nil, err
		}
		ends[i] = [2]*os.File{parent, child}
	}
	inW := ends[0][0]
	if c.Stdin != nil {
		go func() { _, _ = io.Copy(inW, c.Stdin); inW.Close() }()
	} else {
		p.stdin = inW
	}
	p.mu.Lock() // read by finish, on the report reader's goroutine
	p.closeOnEnd = inW
	p.mu.Unlock()
	p.copyOut(copySpec{ends[1][0], p.Stdout, c.Stdout}, copySpec{ends[2][0], p.Stderr, c.Stderr})
	return []*os.File{ends[0][1], ends[1][1], ends[2][1]}, nil
}

// pipeEnds makes one pipe: the parent's end non-blocking (Go's poller
// reads or writes it), the child's blocking and never polled (it is only
// passed to the init and closed). write says the parent writes (stdin).
func pipeEnds(write bool) (parent, child *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	p, c := fds[0], fds[1]
	if write {
		p, c = fds[1], fds[0]
	}
	if err := unix.SetNonblock(p, true); err != nil {
		unix.Close(p)
		unix.Close(c)
		return nil, nil, err
	}
	return os.NewFile(uintptr(p), "pipe"), os.NewFile(uintptr(c), "pipe"), nil
}

// copySpec is one output stream: read r into the ring and the live writer.
type copySpec struct {
	r    *os.File
	ring *Ring
	live io.Writer
}

// copyOut reads each stream until EOF; outDone is closed once all are.
// Once the process ended, Wait sets a read deadline (drainGrace) on each:
// a stream still open then (a background child holds it) is read once
// more without blocking — everything the process wrote before it exited
// is in the pipe, and is kept however late this goroutine got to it —
// and left.
func (p *Process) copyOut(specs ...copySpec) {
	p.outLeft.Store(int32(len(specs)))
	p.mu.Lock()
	for _, c := range specs {
		p.outFiles = append(p.outFiles, c.r)
	}
	p.mu.Unlock()
	for _, c := range specs {
		var w io.Writer = c.ring
		if c.live != nil {
			w = io.MultiWriter(c.ring, liveWriter{c.live})
		}
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := c.r.Read(buf) // a terminal's master reads EIO once the slave is gone
				if n > 0 {
					_, _ = w.Write(buf[:n])
				}
				if errors.Is(err, os.ErrDeadlineExceeded) {
					drainNow(c.r, w, buf)
				}
				if err != nil {
					break
				}
			}
			c.r.Close()
			if p.outLeft.Add(-1) == 0 {
				close(p.outDone)
			}
		}()
	}
}

// drainNow reads what r holds now, without waiting for more, up to
// run.DrainMax bytes (a background child writing on is not followed).
func drainNow(r *os.File, w io.Writer, buf []byte) {
	_ = r.SetReadDeadline(time.Time{}) // RawConn.Read refuses a file past its deadline
	for left := run.DrainMax; left > 0; {
		n, err := run.ReadBuffered(r, buf[:min(len(buf), left)])
		if n > 0 {
			_, _ = w.Write(buf[:n])
			left -= n
		}
		if err != nil {
			return
		}
	}
}

// liveWriter never fails the copy: a live reader that stops reading must
// not stop the ring from filling.
type liveWriter struct{ w io.Writer }

func (l liveWriter) Write(b []byte) (int, error) { _, _ = l.w.Write(b); return len(b), nil }

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// send writes one request, with descriptors, on the control socket.
func (s *Session) send(m *initproc.ControlMsg, files []*os.File) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	var oob []byte
	if len(files) > 0 {
		fds := make([]int, len(files))
		for i, f := range files {
			fds[i] = int(f.Fd())
		}
		oob = unix.UnixRights(fds...)
	}
	s.sys.sendMu.Lock()
	defer s.sys.sendMu.Unlock()
	select {
	case <-s.closeCh:
		return ErrSessionClosed
	default:
	}
	return unix.Sendmsg(int(s.sys.ctl.Fd()), b, oob, nil, unix.MSG_NOSIGNAL)
}

// resize sets the window size of process id's terminal (in the init).
func (s *Session) resize(id uint64, size WindowSize) error {
	if s.one != nil {
		return s.resizeOneShot(id, size)
	}
	return s.send(&initproc.ControlMsg{Op: initproc.OpResize, ID: id, Terminal: winsize(size)}, nil)
}

// winsize is size, 24x80 when either side is zero.
func winsize(size WindowSize) *initproc.Winsize {
	if size.Rows == 0 || size.Cols == 0 {
		size = WindowSize{Rows: 24, Cols: 80}
	}
	return &initproc.Winsize{Rows: size.Rows, Cols: size.Cols}
}

func (s *Session) signal(id uint64, sig syscall.Signal) error {
	if s.one != nil {
		return s.signalOneShot(id, sig)
	}
	return s.send(&initproc.ControlMsg{Op: initproc.OpSignal, ID: id, Sig: int(sig)}, nil)
}

// stopForTimeout ends a process past its Timeout: SIGTERM to its group,
// SIGKILL after the sandbox's KillAfter.
func (s *Session) stopForTimeout(p *Process) {
	if !p.Running() {
		return
	}
	p.mu.Lock()
	p.timedOut = true
	p.mu.Unlock()
	grace := s.l.killAfter()
	if grace > 0 {
		_ = s.signal(p.ID, syscall.SIGTERM)
		select {
		case <-p.done:
			return
		case <-time.After(grace):
		}
	}
	_ = s.signal(p.ID, syscall.SIGKILL)
}

// readReports reads the init's reports until its end closes.
func (s *Session) readReports() {
	buf := make([]byte, initproc.MaxControlMsg)
	fd := int(s.sys.ctl.Fd())
	first := true
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		m, err := initproc.DecodeReport(buf[:n])
		if err != nil {
			continue // not believed
		}
		if m.Kind == initproc.ReportReady {
			if first {
				first = false
				s.sys.ready <- nil
			}
			continue
		}
		s.report(m)
	}
	<-s.sys.runDone // the init closed its end: it is gone, or going
	if first {
		s.sys.ready <- s.setupError()
	}
	s.end(s.initEnded())
	// Only now: end has shut sends out (closeCh, under sendMu), and this
	// was the one reader, so the descriptor number is never used after it
	// could have been reused.
	s.sys.sendMu.Lock()
	s.sys.ctl.Close()
	s.sys.sendMu.Unlock()
}

// initEnded is why a session whose init ended did (once run.Run returned).
func (s *Session) initEnded() error {
	if b := s.sys.breach(); b != outcome.BreachNone {
		return fmt.Errorf("ringfence: the session went past its %s limit and was stopped", b)
	}
	return errors.New("ringfence: the session's init ended")
}

// report applies one report to its process.
func (s *Session) report(m *initproc.ControlMsg) {
	s.mu.Lock()
	p := s.byID[m.ID]
	s.mu.Unlock()
	if p == nil {
		return
	}
	switch m.Kind {
	case status.Started:
		p.mu.Lock()
		if p.pid == 0 {
			p.pid = m.Event.Pid
			p.markStartedLocked()
		}
		p.mu.Unlock()
	case status.Failed:
		if p.Pid() != 0 {
			return // started already: a refusal cannot be about it
		}
		if p.finish(status.Summary{Failure: m.Event}, false) {
			s.processEnded()
		}
	case status.Exited:
		if p.finish(status.Summary{Started: true, Exit: m.Event}, false) {
			s.processEnded()
		}
	}
}

// setupError is why the init never served.
func (s *Session) setupError() error {
	if s.sys.runErr != nil {
		return fmt.Errorf("ringfence: session not started: %w", s.sys.runErr)
	}
	if r := s.sys.runRes; r != nil && r.Status.Failure != nil {
		f := r.Status.Failure
		return fmt.Errorf("ringfence: session not started: confinement step %q failed (%s)", f.Stage, f.Errno)
	}
	return errors.New("ringfence: session not started: its init ended before serving")
}

func (s *Session) forget(p *Process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, p.ID)
	for i, q := range s.procs {
		if q == p {
			s.procs = append(s.procs[:i], s.procs[i+1:]...)
			break
		}
	}
}

// keptEnded is how many ended processes Processes still lists (their
// output and result); older ended ones are forgotten.
const keptEnded = 256

// processEnded counts a process's end, prunes the oldest ended processes
// and, once none runs, starts the idle timer.
func (s *Session) processEnded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running--
	if ended := len(s.procs) - s.running; ended > keptEnded {
		kept := s.procs[:0]
		for _, p := range s.procs {
			select {
			case <-p.done:
				if ended > keptEnded {
					ended--
					delete(s.byID, p.ID)
					continue
				}
			default:
			}
			kept = append(kept, p)
		}
		clear(s.procs[len(kept):])
		s.procs = kept
	}
	if s.running == 0 {
		s.armIdleLocked()
	}
}

// withEnv is base with extra's variables set over it.
func withEnv(base []string, extra map[string]string) []string {
	if len(extra) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := extra[k]; !over {
			out = append(out, kv)
		}
	}
	for k, v := range extra {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func (s *Session) armIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armIdleLocked()
}

// armIdleLocked (re)starts the idle timer: the session closes itself
// once nothing has run for IdleTimeout.
func (s *Session) armIdleLocked() {
	if s.closed || s.opts.IdleTimeout < 0 {
		return
	}
	if s.idle != nil {
		s.idle.Stop()
	}
	s.idle = time.AfterFunc(s.opts.IdleTimeout, func() {
		s.mu.Lock()
		busy := s.running > 0
		s.mu.Unlock()
		if !busy {
			s.end(errors.New("ringfence: the session was idle too long"))
		}
	})
}

// Close ends the session: every process, mount and namespace with its
// init, its cgroup and the temp dirs of its run. It returns once all of
// that is gone. Processes still running end as aborted.
func (s *Session) Close() error {
	s.end(ErrSessionClosed)
	if s.one != nil {
		s.one.runs.Wait()
		return nil
	}
	<-s.sys.runDone
	return nil
}

// end tears the session down, once, and records why.
func (s *Session) end(why error) {
	if s.one != nil {
		s.endOneShot(why)
		return
	}
	s.mu.Lock()
	if !s.markEnded(why) {
		s.mu.Unlock()
		return
	}
	procs := append([]*Process(nil), s.procs...)
	s.mu.Unlock()
	s.sys.sendMu.Lock()
	close(s.closeCh)
	s.sys.sendMu.Unlock()
	// SIGKILL the init (the run's tree kill): as pid 1 its death ends every
	// process of the session, and the mount namespace with it.
	s.sys.cancel()
	go func() {
		<-s.sys.runDone
		for _, p := range procs {
			p.mu.Lock()
			// Asked to start and never reported either way: it may
			// have run, so it is never told as "never ran".
			sum := status.Summary{Started: true, Unconfirmed: p.pid == 0}
			p.mu.Unlock()
			if p.finish(sum, true) {
				s.processEnded()
			}
		}
	}()
}
