package initproc

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/execpath"
	"github.com/ringfence/ringfence/internal/status"
)

// forwarded are the signals the init passes on to the command. As pid 1
// of its namespace the init would otherwise ignore them.
var forwarded = []os.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2}

// startAndReap starts the command as the init's child, reports it, reaps
// every process that ends up with the init as parent, and returns the
// command's exit code (128+signal when a signal ended it).
func startAndReap(spec *Spec, st *os.File) int {
	if err := unix.Chdir(spec.Dir); err != nil {
		reportSetup(st, stage("chdir", err))
		return ExitSetup
	}
	sigs := beDeaf()
	watchParentDeath(spec.Parent)
	// From this record on the command may have run: if the init dies
	// before it says started or failed, it is not told as "never ran".
	if err := status.Write(st, status.Event{Kind: status.Exec}); err != nil {
		return ExitSetup // nobody is listening: start nothing
	}
	pid, err := start(spec)
	var se *stageError
	if errors.As(err, &se) {
		reportSetup(st, err)
		return ExitSetup
	}
	if err != nil {
		reportExecFailure(st, err)
		return ExitSetup
	}
	_ = status.Write(st, status.Event{Kind: status.Started, Pid: pid})
	go forward(sigs, pid)
	ws := reap(pid)
	if os.Getpid() != 1 {
		// No pid namespace to end what is left with the init: a
		// background child, a setsid'd daemon (re-parented to this
		// subreaper) end with the command, as they would under pid 1.
		// On another thread: this one is confined (Landlock may refuse
		// it the /proc the walk reads), the runtime's others are not.
		done := make(chan struct{})
		go func() { killDescendants(); close(done) }()
		<-done
	}
	ev := status.Event{Kind: status.Exited}
	code := ws.ExitStatus()
	if ws.Signaled() {
		ev.Signal = unix.SignalName(ws.Signal())
		code = 128 + int(ws.Signal())
	} else {
		ev.ExitCode = &code
	}
	_ = status.Write(st, ev)
	return code
}

// start forks and executes the command from this (locked) thread, so it
// inherits this thread's empty capability sets. ForkExec reports an exec
// failure synchronously, through its own close-on-exec pipe: a program
// that is missing is told apart from one that exits 127.
func start(spec *Spec) (int, error) {
	prog, err := lookPath(spec.Argv[0], spec.Env)
	if err != nil {
		return 0, err
	}
	if spec.Nest && nestable() {
		return startNested(prog, spec)
	}
	return syscall.ForkExec(prog, spec.Argv, &syscall.ProcAttr{
		Env:   spec.Env,
		Files: []uintptr{0, 1, 2},
		Sys:   childAttr(stdioTerminals()),
	})
}

// childAttr is how the command is started. On a terminal it leads a
// session whose controlling terminal that is, so the terminal's Ctrl-C,
// Ctrl-Z and SIGWINCH reach its foreground group (the supervisor opened
// that terminal for this command: it never passes a terminal of the
// user's, see run.Options.Stdin). Otherwise it stays in the init's session.
func childAttr(tty [3]bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	for fd, t := range tty {
		if t {
			a.Setsid, a.Setctty, a.Ctty = true, true, fd
			break
		}
	}
	return a
}

// stdioTerminals says which of descriptors 0, 1 and 2 are terminals.
func stdioTerminals() [3]bool {
	var tty [3]bool
	for fd := range tty {
		_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		tty[fd] = err == nil
	}
	return tty
}

// lookPath finds prog in the command's own PATH, as a shell would, minus
// the empty and relative entries (execpath): they name the workspace.
func lookPath(prog string, env []string) (string, error) {
	return execpath.Find(prog, execpath.PathOf(env, "/usr/local/bin:/usr/bin:/bin"))
}

func reportExecFailure(st *os.File, err error) {
	ev := status.Event{Kind: status.Failed, Stage: "exec", Reason: status.SetupFailed}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		ev.Errno = unix.ErrnoName(errno)
		switch errno {
		case unix.ENOENT, unix.ENOTDIR:
			ev.Reason, ev.Detail = status.NotFound, "the program does not exist in the sandbox"
		case unix.EACCES, unix.ENOEXEC, unix.EPERM, unix.EISDIR:
			ev.Reason, ev.Detail = status.NotExecutable, "the program cannot be executed in the sandbox"
		}
	}
	_ = status.Write(st, ev)
}

// ignoreSignals makes the init deaf to every signal it does not use, so
// the command cannot end or stop it by one: Go's runtime would otherwise
// crash on a SIGABRT, SIGSEGV or SIGSYS sent with kill (ending the tree
// and the init's account of it), and SIGTSTP/SIGTTIN/SIGTTOU keep their
// default, stopping action. (As pid 1 of a pid namespace the kernel
// already drops SIGKILL and SIGSTOP from inside; without one, the landlock
// backend, the command's own Landlock domain refuses every signal to the
// init: see Spec.Nest.) They are caught and dropped, not set to SIG_IGN:
// an ignored disposition survives fork and exec, and the command must
// start with the default ones. Kept as they were: SIGCHLD (reaping),
// SIGURG and SIGPROF (the runtime's), the forwarded signals and the
// parent-death signal. Real faults are not sent by kill and still crash.
func ignoreSignals() {
	keep := map[syscall.Signal]bool{unix.SIGKILL: true, unix.SIGSTOP: true, unix.SIGCHLD: true,
		unix.SIGURG: true, unix.SIGPROF: true, ParentDeathSignal: true}
	for _, s := range forwarded {
		keep[s.(syscall.Signal)] = true
	}
	var drop []os.Signal
	for s := syscall.Signal(1); s < 32; s++ {
		if !keep[s] {
			drop = append(drop, s)
		}
	}
	// Never read: signal.Notify drops what does not fit.
	signal.Notify(make(chan os.Signal, 1), drop...)
}

var (
	deafOnce sync.Once
	deafDone = make(chan struct{})
	// early receives the forwarded signals from the init's first step on.
	early = make(chan os.Signal, 8)
)

// startDeafening runs ignoreSignals, and catches the forwarded signals,
// once, on a goroutine of its own: each signal costs a round trip to the
// runtime's signal thread (0.6–2 ms in all on the shared test machine),
// which now overlaps the set-up: it runs whenever the main goroutine's
// thread waits in a system call long enough for the runtime to hand the
// one P over (mounts, the cgroup gate), at the latest when beDeaf waits
// for it. A second P made no measurable difference and cost ≈300 KB of
// resident memory (issue 16's target for the init is 4 MiB). Being deaf
// early is only stronger, but not from the first instruction: a signal
// before the goroutine has run is the runtime's (a kill-sent SIGTRAP or
// SIGSYS is a throw: exit 2, no status, nothing started). A gated init
// waits for it before its gate (run), so from then on none ends it.
func startDeafening() {
	deafOnce.Do(func() {
		go func() {
			ignoreSignals()
			signal.Notify(early, forwarded...)
			close(deafDone)
		}()
	})
}

// beDeaf returns, once ignoreSignals has run, the forwarded signals caught
// since (to pass on to the command). One caught before the command is
// about to start ends the init as it did when they were caught only from
// then on: by the runtime's own handling of it (dieOf), so the init never
// ran anything and says nothing.
func beDeaf() <-chan os.Signal {
	startDeafening()
	<-deafDone
	select {
	case s := <-early:
		dieOf(s.(syscall.Signal))
	default:
	}
	return early
}

// dieOf ends the init by sig as the Go runtime ends a program that does
// not catch it: with the runtime's handler back in place, the signal is
// sent to this thread. (As pid 1 of a pid namespace the kernel refuses the
// runtime's own re-raise, and the runtime then exits with status 2.)
func dieOf(sig syscall.Signal) {
	signal.Reset(sig)
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
	time.Sleep(time.Second)
	os.Exit(2) // the runtime's last resort too
}

func forward(sigs <-chan os.Signal, pid int) {
	for s := range sigs {
		_ = unix.Kill(pid, s.(syscall.Signal))
	}
}

// reap waits for every child until the command itself has ended.
func reap(pid int) unix.WaitStatus {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || got == pid {
			return ws
		}
	}
}
