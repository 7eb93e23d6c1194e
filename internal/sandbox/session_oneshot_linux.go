package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/policy"
)

// Sessions of one-shot runs are offered where the backend declares them
// (confine.SessionsRuns): only landlock, whose tree is a process group
// under its own init (a subreaper with the parent-death signal), whose
// command descendants Signal can tell from the runners. bwrap's tree is a
// pid namespace whose runners are bwrap's own processes; it declares no
// sessions (yet).

// oneShotSession makes a session of one-shot runs under pol.
func (l *Local) oneShotSession(pol *policy.Policy, o SessionOptions, env []string) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{l: l, pol: pol, opts: o, byID: map[uint64]*Process{}, closeCh: make(chan struct{}),
		nc: l.narration(pol), env: env, one: &oneShot{ctx: ctx, cancel: cancel}}
	s.armIdle()
	return s
}

// startOneShot runs p (registered, counted as running) as its own confined
// run. It returns once the run's root has started and been admitted under
// its limits (or the run failed: Wait says why).
func (s *Session) startOneShot(ctx context.Context, p *Process, c Cmd, host string) (*Process, error) {
	pol := *s.pol
	pol.Cwd = host
	env := withEnv(s.env, c.Env)
	cmd, err := s.l.confine(c.Argv, host, env, &pol)
	if err != nil {
		if p.finish(status.Summary{Failure: &status.Event{Kind: status.Failed, Stage: "start", Reason: status.SetupFailed}}, true) {
			s.processEnded()
		}
		s.forget(p)
		return nil, err
	}
	ro := s.l.runOptions(ExecOptions{Timeout: c.Timeout}, &pol, cmd)
	if c.Timeout < 0 {
		ro.Timeout = 0 // none: a server that runs until stopped or the session ends
	}
	ro.KillAfter = s.l.killAfter()
	// The ring keeps the recent tail for the result; run's own copy is
	// only the classifier's, and a long-running server is never stopped
	// for talking (the ring bounds memory).
	ro.MaxStdout, ro.MaxStderr = int64(s.opts.OutputKept), int64(s.opts.OutputKept)
	ro.KeepRunningPastCeiling = true
	ro.Stdout, ro.Stderr = liveOut(p.Stdout, c.Stdout), liveOut(p.Stderr, c.Stderr)
	var stdinR *os.File
	if c.Stdin != nil {
		ro.Stdin = c.Stdin
	} else {
		// A pipe is handed to the command as is (run.Options.Stdin); its
		// write end is Process.Write's, closed by CloseStdin or the end.
		w, r, err := pipeEnds(true)
		if err != nil {
			if p.finish(status.Summary{Failure: &status.Event{Kind: status.Failed, Stage: "start", Reason: status.SetupFailed}}, true) {
				s.processEnded()
			}
			s.forget(p)
			return nil, err
		}
		stdinR, ro.Stdin = r, r
		p.mu.Lock()
		p.stdin, p.closeOnEnd = w, w
		p.mu.Unlock()
	}
	if c.Terminal != nil {
		// run opens the terminal and feeds Stdin into it (the pipe's end
		// of input types Ctrl-D); Resize follows Process.Resize.
		rs := make(chan run.WindowSize, 1)
		rs <- runSize(*c.Terminal)
		ro.Terminal = &run.Terminal{Stdin: true, Stdout: true, Stderr: true}
		ro.Resize = rs
		p.mu.Lock()
		p.terminal, p.resizeC = true, rs
		p.mu.Unlock()
	}
	ro.OnStart = func(pid int) {
		p.mu.Lock()
		p.pid = pid
		p.markStartedLocked()
		p.mu.Unlock()
	}
	runCtx, cancel := context.WithCancel(s.one.ctx)
	s.one.runs.Add(1)
	go func() {
		defer s.one.runs.Done()
		defer cancel()
		res, err := run.Run(runCtx, cmd, ro)
		if stdinR != nil {
			stdinR.Close()
		}
		var out *ExecResult
		var sum status.Summary
		aborted := false
		if err != nil {
			out = s.l.startFailure(cmd, &pol, err)
			sum = status.Summary{Failure: &status.Event{Kind: status.Failed, Stage: "start", Reason: status.SetupFailed}}
		} else {
			out = s.l.resultIn(s.nc, cmd, &pol, ro, res)
			sum, aborted = res.Status, res.Aborted
			// The result tells the recent output (the ring), as a
			// session's process does, not run's head-of-stream copy.
			o, _ := p.Stdout.Snapshot()
			e, _ := p.Stderr.Snapshot()
			out.Stdout, out.Stderr = string(o), string(e)
		}
		out.Env = envNames(env)
		out.Enforcement.Reasons = append(out.Enforcement.Reasons, OneShotSessionReasons...)
		p.mu.Lock()
		p.res = out
		if !sum.Started {
			// The run's root started, the command never did (not
			// found, not executable): it is told as never run.
			p.pid = 0
		}
		p.mu.Unlock()
		close(p.outDone) // run returned: every stream was read to its end
		if p.finish(sum, aborted) {
			s.processEnded()
		}
	}()
	select {
	case <-p.started:
	case <-ctx.Done():
		cancel() // it is stopped as a cancelled run (aborted)
		return nil, ctx.Err()
	}
	// As a linux session's Start, return once the command was executed
	// or refused (a missing program has then ended, never run): the init
	// forks it just after the root was admitted.
	if self, ok := fileOf("/proc/self/exe"); ok {
		deadline := time.Now().Add(commandAppears)
		for len(commandPids(p.Pid(), self)) == 0 && time.Now().Before(deadline) {
			select {
			case <-p.done:
				return p, nil
			case <-ctx.Done():
				return p, nil // it runs on: the session's now
			case <-time.After(time.Millisecond):
			}
		}
	}
	return p, nil
}

// commandPids are the command processes below a run's root: its
// descendants that do not run ringfence's own binary (self), which the
// runners (the init, a nested init) do.
func commandPids(root int, self fileID) []int {
	if root == 0 {
		return nil
	}
	var out []int
	for _, pid := range treeBelow(root) {
		if exe, ok := fileOf("/proc/" + strconv.Itoa(pid) + "/exe"); ok && exe != self {
			out = append(out, pid)
		}
	}
	return out
}

// liveOut is the ring, and live when set (never failing the copy).
func liveOut(ring *Ring, live io.Writer) io.Writer {
	if live == nil {
		return ring
	}
	return io.MultiWriter(ring, liveWriter{live})
}

func runSize(size WindowSize) run.WindowSize {
	ws := winsize(size)
	return run.WindowSize{Rows: ws.Rows, Cols: ws.Cols}
}

// resizeOneShot hands the new size to the run's terminal relay; a size not
// yet applied is replaced (only the latest matters).
func (s *Session) resizeOneShot(id uint64, size WindowSize) error {
	p := s.lookup(id)
	if p == nil {
		return errors.New("ringfence: no such process")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resizeC == nil {
		return errors.New("ringfence: the process has no terminal")
	}
	ws := runSize(size)
	for {
		select {
		case p.resizeC <- ws:
			return nil
		default:
			select {
			case <-p.resizeC:
			default:
			}
		}
	}
}

// signalOneShot sends sig to every command process of the run's tree: the
// descendants of its root (the landlock init) that are not runners (not
// ringfence's own binary). The root is held unreaped by run until the run
// ends, so its pid names this run; a descendant's pid can be reused between
// the walk and the kill only if it died meanwhile (the same window run's
// own tree kill has).
func (s *Session) signalOneShot(id uint64, sig syscall.Signal) error {
	p := s.lookup(id)
	if p == nil {
		return errors.New("ringfence: no such process")
	}
	root := p.Pid()
	select {
	case <-p.done:
		return errors.New("ringfence: the process is not running")
	default:
	}
	self, ok := fileOf("/proc/self/exe")
	if !ok {
		return errors.New("ringfence: cannot tell the runners from the command (/proc/self/exe)")
	}
	// Start waits (bounded) for the command to appear below the root; a
	// signal sent before it has waits likewise rather than reach nothing.
	deadline := time.Now().Add(commandAppears)
	for {
		n := 0
		for _, pid := range commandPids(root, self) { // never a runner
			if unix.Kill(pid, sig) == nil {
				n++
			}
		}
		if n > 0 {
			return nil
		}
		select {
		case <-p.done:
			return errors.New("ringfence: the process is not running")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("ringfence: the process is not running (no command below its run)")
		}
	}
}

// commandAppears bounds how long Signal waits for a just-started run's
// command to be executed.
const commandAppears = 2 * time.Second

func (s *Session) lookup(id uint64) *Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// fileID is a file by device and inode (a bind mount of it is the same).
type fileID struct{ dev, ino uint64 }

func fileOf(path string) (fileID, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), st.Ino}, true
}

// treeBelow lists pid's descendants (breadth first, bounded), read from
// /proc/<pid>/task/*/children.
func treeBelow(root int) []int {
	var out []int
	queue := []int{root}
	for len(queue) > 0 && len(out) < 1<<16 {
		pid := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

// endOneShot ends the session: every run still going is stopped as
// aborted (SIGTERM to its command, SIGKILL after the sandbox's KillAfter,
// as a cancelled Exec), and the runs' goroutines finish their processes.
func (s *Session) endOneShot(why error) {
	s.mu.Lock()
	if !s.markEnded(why) {
		s.mu.Unlock()
		return
	}
	close(s.closeCh)
	s.mu.Unlock()
	s.one.cancel()
}
