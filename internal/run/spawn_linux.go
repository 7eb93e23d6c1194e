package run

import (
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine"
)

// proc is a started process whose wait status arrives on done.
//
// The root is reaped only under mu, after waiting for its exit without
// reaping it (WNOWAIT): while killTree holds mu the root's pid stays a
// zombie at worst, so the tree walk below it can never land on a reused pid.
type proc struct {
	pid     int
	process *os.Process
	done    chan struct{}
	state   *os.ProcessState

	mu     sync.Mutex
	reaped bool
}

// spawn starts cmd on a goroutine locked to its OS thread and waits for it
// there. Pdeathsig is delivered when the *thread* that forked the child
// exits, not the process; Go may retire an idle thread at any time, so the
// forking thread is pinned until the child has been reaped.
//
// A limiter's enter and leave run on that same thread around the fork so
// the child is born inside its cgroup. If enter fails the child is placed
// after the start instead (admit), a window documented as a gap.
func spawn(cmd *exec.Cmd, lim limiter) (*proc, error) {
	p := &proc{done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		entered := lim != nil && lim.enter() == nil
		err := cmd.Start()
		if entered {
			lim.leave()
		}
		if err != nil {
			started <- err
			return
		}
		p.pid, p.process = cmd.Process.Pid, cmd.Process
		started <- nil
		waitExit(p.pid)
		p.mu.Lock()
		_ = cmd.Wait()
		p.reaped = true
		p.mu.Unlock()
		p.state = cmd.ProcessState
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// waitExit blocks until pid has exited, leaving it a zombie.
func waitExit(pid int) {
	var si unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &si, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR {
			return
		}
	}
}

// waitFacts returns the exit code (-1 when signalled) and signal name.
func (p *proc) waitFacts() (int, string) {
	ws, ok := p.state.Sys().(syscall.WaitStatus)
	if !ok {
		return p.state.ExitCode(), ""
	}
	if ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}

// inPidNamespace reports whether the attributes create a pid namespace.
func inPidNamespace(a *syscall.SysProcAttr) bool {
	return a != nil && a.Cloneflags&syscall.CLONE_NEWPID != 0
}

// procAttr copies the caller's attributes and adds what supervision needs:
// a process group of its own when the tree is killed by group (unless the
// caller already asked for a session, which implies one), and a parent-death
// signal so the runner dies with the supervisor. It reports whether the
// process leads its own group.
func procAttr(c *confine.Cmd, deathSig syscall.Signal) (*syscall.SysProcAttr, bool) {
	a := &syscall.SysProcAttr{}
	if c.SysProcAttr != nil {
		cp := *c.SysProcAttr
		a = &cp
	}
	if c.TreeKill != confine.KillPidNamespace && !inPidNamespace(a) && !a.Setsid {
		a.Setpgid, a.Pgid = true, 0
	}
	if a.Pdeathsig == 0 {
		a.Pdeathsig = deathSig
	}
	return a, a.Setpgid && a.Pgid == 0 || a.Setsid
}

// environ returns the command's environment exactly: a nil slice would make
// os/exec inherit the supervisor's environment, which must never happen.
func environ(env []string) []string {
	if env == nil {
		return []string{}
	}
	return env
}
