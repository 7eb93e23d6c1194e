package shim

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/policy"
)

// forwarded are the signals the shim passes on to the command.
var forwarded = []os.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2}

// runCommand starts the command as the shim's child and stays, as the
// sandbox's pid 1, until it ends. With --supervise the command runs under a second
// seccomp filter that sends its unix-socket connects (and, with --protect,
// its creations) to the shim, which answers them (seccomp.Supervise) from
// inside the sandbox, where it shares the command's mount namespace and
// root as the supervisor must. The filter is loaded on this goroutine's
// locked thread only (ThisThread), so the supervisor's own threads are not
// filtered and the command, forked from this thread, is.
//
// As pid 1 the shim cannot be killed or stopped from inside the sandbox
// (the kernel drops SIGKILL and SIGSTOP sent to a namespace's init by its
// own members), and it catches every other signal so that none of them
// ends it either: it forwards the ones a supervisor sends and ignores the
// rest. It reaps every orphan the command leaves, and when the command
// ends it reports and exits, which ends every process left in the pid
// namespace.
func runCommand(out *os.File, path string, o shimOpts) int {
	runtime.LockOSThread() // never unlocked: this thread carries the filter
	if o.proxy > 0 {
		if err := startProxy(o.proxy); err != nil {
			_ = status.Write(out, status.Event{Kind: status.Failed, Reason: status.SetupFailed, Stage: "network",
				Detail: "cannot set up the domains network: " + err.Error()})
			return 125
		}
	}
	if o.supervise {
		stop, err := startSupervisor(o)
		if err != nil {
			_ = status.Write(out, status.Event{Kind: status.Failed, Reason: status.SetupFailed, Stage: "seccomp",
				Detail: "cannot load the unix-socket filter"})
			return 125
		}
		defer stop()
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs) // every catchable signal: none may end pid 1
	// Started goes first: once the command runs it may stop the shim's
	// progress (by starving it, say), and the record must already say it
	// ran. A Failed after it (execve failed) overrides it; the pid follows
	// in a second Started once known.
	_ = status.Write(out, status.Event{Kind: status.Started})
	attr := &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}}
	for fd := range 3 { // on a terminal (the supervisor's new one), lead a session on it
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			attr.Sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: fd}
			break
		}
	}
	proc, err := os.StartProcess(path, o.argv, attr)
	if err != nil {
		return execFailed(out, err)
	}
	_ = status.Write(out, status.Event{Kind: status.Started, Pid: proc.Pid})
	go func() {
		for s := range sigs {
			if isForwarded(s) {
				_ = proc.Signal(s)
			}
		}
	}()
	ws, err := reap(proc.Pid)
	if err != nil {
		_ = status.Write(out, status.Event{Kind: status.Failed, Reason: status.SetupFailed, Stage: "wait",
			Detail: "lost the command's exit status: " + err.Error()})
		return 125
	}
	return exited(out, ws)
}

// reap waits for every child (orphans are re-parented to pid 1) until the
// command itself ends, and returns how it ended. proc.Wait is never called:
// this loop owns every exit status in the sandbox.
func reap(pid int) (syscall.WaitStatus, error) {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil: // ECHILD before the command was seen: never expected
			return 0, err
		case got == pid:
			return syscall.WaitStatus(ws), nil
		}
	}
}

func isForwarded(s os.Signal) bool {
	for _, f := range forwarded {
		if s == f {
			return true
		}
	}
	return false
}

// startSupervisor loads the notify filter on this thread and answers it
// from a goroutine until stop is called.
func startSupervisor(o shimOpts) (stop func(), err error) {
	names := len(o.names.Roots) > 0
	listener, err := installNotify(len(o.protect) > 0 || names, names)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	rules := seccomp.Rules{AllowUnix: allowSocket(o.sockets)}
	if len(o.protect) > 0 {
		// The shim holds no capability (--cap-drop ALL), has its own /proc
		// and no Landlock domain, and creates no file of its own: what the
		// guard requires to perform creations on the command's behalf.
		rules = seccomp.Protect(o.protect).Rules(allowSocket(o.sockets))
	}
	// A socket file in the view whose listener is outside bwrap's pid
	// namespace is a host process's, unless the policy names it ("=").
	rules.PeerInside, rules.AllowUnixHost = seccomp.PeerInPidNamespace, hostSocket(o.sockets)
	if names {
		rules.Names = &o.names
	}
	go func() { _ = seccomp.Supervise(ctx, listener, rules) }()
	return cancel, nil
}

func installNotify(guard, writes bool) (*os.File, error) {
	prog, err := seccomp.Build(seccomp.Options{DenyUnixConnect: true, GuardCreate: guard, GuardWrite: writes})
	if err != nil {
		return nil, err
	}
	listener, err := seccomp.Install(prog, seccomp.ThisThread)
	if err == nil && listener == nil {
		err = errors.New("no listener")
	}
	return listener, err
}

// exited reports the command's exact end and exits as a shell would.
func exited(out *os.File, ws syscall.WaitStatus) int {
	if ws.Signaled() {
		_ = status.Write(out, status.Event{Kind: status.Exited, Signal: unix.SignalName(ws.Signal())})
		return 128 + int(ws.Signal())
	}
	code := ws.ExitStatus()
	_ = status.Write(out, status.Event{Kind: status.Exited, ExitCode: &code})
	return code
}

// allowSocket decides a supervised connect by the rules the planner drew
// from the view: the last rule whose path contains the socket wins.
func allowSocket(rules []string) func(string) bool {
	return func(path string) bool {
		allowed := false
		for _, r := range rules {
			if policy.Contains(r[1:], path) {
				allowed = r[0] == '+' || r[0] == '='
			}
		}
		return allowed
	}
}

// hostSocket reports whether the rules name path as a socket the policy
// allows whoever listens on it ("=PATH"): the last containing rule decides.
func hostSocket(rules []string) func(string) bool {
	return func(path string) bool {
		named := false
		for _, r := range rules {
			if policy.Contains(r[1:], path) {
				named = r[0] == '='
			}
		}
		return named
	}
}
