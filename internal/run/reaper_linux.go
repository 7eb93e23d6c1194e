package run

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/status"
)

// reapArg is the os.Args[1] on which the entry table (internal/entry)
// starts the reaper.
const reapArg = ReapArg

// reaperEnv marks the reaper's own environment (and is removed before the
// command runs). A binary that was re-executed as the reaper but did not
// dispatch would run its ordinary main — for a test binary, the whole
// suite, which would start reapers again without end; Run refuses to run
// in a process that carries the mark, which ends that recursion at the
// first level.
const reaperEnv = "RINGFENCE_RUN_REAPER"

// ErrReaperNotDispatched is returned by Run when Options.Reaper is asked
// of a binary that never called entry.Dispatch, and inside a process that
// was started as the reaper but whose binary does not dispatch.
var ErrReaperNotDispatched = errors.New("this process was started as the run reaper but its binary does not dispatch its entry points (internal/entry)")

// ReapArg is the reaper's entry point name in the entry table.
const ReapArg = "__reap"

// The reaper is one of the binary's entry points: every binary that links
// this package and calls entry.Dispatch first thing in main (or TestMain)
// can be re-executed as it.
func init() { entry.Register(ReapArg, reap) }

// The reaper is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphan
// of the tree, a setsid'd daemon included, is re-parented to it rather
// than to the host's init, so it can always find and end them. It starts
// with SIGTERM as its parent-death signal and ends the whole tree when the
// supervisor dies, even by SIGKILL. It waits on a start gate, so it is
// placed in its cgroup before the command runs, and reports on a status
// channel (internal/status) the command never holds. Run uses it for a
// process-group Cmd when Options.Reaper is set.
func reap(args []string) int {
	runtime.LockOSThread() // the command's Pdeathsig follows this thread
	if os.Getenv(reaperEnv) != "1" {
		return 125 // not started by Run: refuse to act as anyone's reaper
	}
	_ = os.Unsetenv(reaperEnv)
	n, err := strconv.Atoi(firstOr(args, ""))
	if err != nil || n < 0 || len(args) < 3 {
		return 125
	}
	st, gate := os.NewFile(uintptr(3+n), "status"), os.NewFile(uintptr(4+n), "gate")
	unix.CloseOnExec(3 + n)
	unix.CloseOnExec(4 + n)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if b := make([]byte, 1); readFull(gate, b) != nil {
		return 125 // the supervisor gave up before admitting us
	}
	_ = gate.Close()
	cmd := reapedCmd(args[1], args[2:], n)
	if err := cmd.Start(); err != nil {
		_ = status.Write(st, startFailure(err))
		return 127
	}
	_ = status.Write(st, status.Event{Kind: status.Started, Pid: cmd.Process.Pid})
	if ev := reapAll(cmd.Process.Pid, sigs); ev != nil {
		_ = status.Write(st, *ev)
	}
	return 0
}

func firstOr(a []string, d string) string {
	if len(a) == 0 {
		return d
	}
	return a[0]
}

func readFull(f *os.File, b []byte) error {
	k, err := f.Read(b)
	if k == len(b) {
		return nil
	}
	if err == nil {
		err = errors.New("short read")
	}
	return err
}

// reapedCmd is the command as the reaper starts it: same environment and
// working directory as the reaper (the supervisor set them), descriptors
// 0, 1, 2 and 3…3+n-1, its own process group, and death with the reaper.
func reapedCmd(path string, argv []string, n int) *exec.Cmd {
	extra := make([]*os.File, n)
	for i := range extra {
		extra[i] = os.NewFile(uintptr(3+i), "extra")
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// On a terminal (only ever the new one Run opened: Run never hands a
	// user's terminal over), the command leads a session whose controlling
	// terminal it is, so Ctrl-C and Ctrl-Z reach its foreground group. Its
	// group is still its pid, which endAll kills.
	if fd, ok := ctty([3]bool{isTerminal(os.Stdin), isTerminal(os.Stdout), isTerminal(os.Stderr)}); ok {
		attr.Setpgid, attr.Setsid, attr.Setctty, attr.Ctty = false, true, true, fd
	}
	return &exec.Cmd{
		Path: path, Args: argv, Env: environ(os.Environ()),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, ExtraFiles: extra,
		SysProcAttr: attr,
	}
}

func startFailure(err error) status.Event {
	ev := status.Event{Kind: status.Failed, Stage: "exec", Reason: status.NotExecutable}
	if errors.Is(err, fs.ErrNotExist) {
		ev.Reason = status.NotFound
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		ev.Errno = unix.ErrnoName(errno)
	}
	return ev
}

type reaped struct {
	pid int
	ws  syscall.WaitStatus
}

// reapAll reaps every child until none is left. When the command itself
// ends, or a signal says the supervisor is gone, the rest of the tree is
// ended; while anything remains it is swept again every SampleInterval.
func reapAll(child int, sigs <-chan os.Signal) *status.Event {
	waits := make(chan reaped, 16)
	go waitAll(waits)
	var exit *status.Event
	var tick <-chan time.Time
	for {
		select {
		case w, ok := <-waits:
			if !ok {
				return exit
			}
			if w.pid == child {
				exit = exitEvent(w.ws)
				tick = endAll(child)
			}
		case <-sigs:
			tick = endAll(child)
		case <-tick:
			tick = endAll(child)
		}
	}
}

func waitAll(out chan<- reaped) {
	defer close(out)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		out <- reaped{pid, ws}
	}
}

// endAll SIGKILLs the command's group and every descendant of the reaper.
func endAll(child int) <-chan time.Time {
	_ = syscall.Kill(-child, syscall.SIGKILL)
	for range 8 {
		ds := descendants(os.Getpid())
		signalAll(ds, syscall.SIGSTOP)
		signalAll(ds, syscall.SIGKILL)
		if len(ds) == 0 {
			break
		}
	}
	return time.After(SampleInterval)
}

func exitEvent(ws syscall.WaitStatus) *status.Event {
	if ws.Signaled() {
		return &status.Event{Kind: status.Exited, Signal: unix.SignalName(ws.Signal())}
	}
	code := ws.ExitStatus()
	return &status.Event{Kind: status.Exited, ExitCode: &code}
}
