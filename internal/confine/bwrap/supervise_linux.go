package bwrap

import (
	"context"
	"errors"
	"os"
	"os/exec"
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

// supervise runs the command as the shim's child under a second seccomp
// filter that sends its unix-socket connects to the shim, which answers
// them (seccomp.SuperviseUnix) from inside the sandbox, where it shares the
// command's mount namespace and root as the supervisor must. The filter is
// loaded on this goroutine's locked thread only (ThisThread), so the
// supervisor's own threads are not filtered and the command, forked from
// this thread, is. The shim makes itself non-dumpable so the command
// cannot reach its memory or descriptors through /proc.
func supervise(out *os.File, path string, o shimOpts) int {
	runtime.LockOSThread() // never unlocked: this thread carries the filter
	names := len(o.names.Roots) > 0
	listener, err := installNotify(len(o.protect) > 0 || names, names)
	if err != nil {
		_ = status.Write(out, status.Event{Kind: status.Failed, Reason: status.SetupFailed, Stage: "seccomp",
			Detail: "cannot load the unix-socket filter"})
		return 125
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rules := seccomp.Rules{AllowUnix: allowSocket(o.sockets)}
	if len(o.protect) > 0 {
		// The shim holds no capability (--cap-drop ALL), has its own /proc
		// and no Landlock domain, and creates no file of its own: what the
		// guard requires to perform creations on the command's behalf.
		rules = seccomp.Protect(o.protect).Rules(allowSocket(o.sockets))
	}
	if names {
		rules.Names = &o.names
	}
	go func() { _ = seccomp.Supervise(ctx, listener, rules) }()

	cmd := &exec.Cmd{Path: path, Args: o.argv, Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	// Started goes first, as in the in-place path: once the command runs it
	// can kill the shim, and the record must already say it ran. A Failed
	// after it (execve failed) overrides it; the pid follows in a second
	// Started once known.
	_ = status.Write(out, status.Event{Kind: status.Started})
	if err := cmd.Start(); err != nil {
		return execFailed(out, err)
	}
	_ = status.Write(out, status.Event{Kind: status.Started, Pid: cmd.Process.Pid})
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	return exited(out, cmd.ProcessState.Sys().(syscall.WaitStatus))
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
				allowed = r[0] == '+'
			}
		}
		return allowed
	}
}
