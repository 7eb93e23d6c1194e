package reaper

import (
	"errors"
	"io/fs"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/proctree"
	"github.com/ringfence/ringfence/internal/status"
)

// The reaper is one of the binary's entry points: every binary that links
// this package and calls entry.Dispatch first thing in main (or TestMain)
// can be re-executed as it — the carried init image among them.
func init() { entry.Register(Arg, Main) }

// Main is the reaper: `__reap N PATH ARGV...`, with the command's own
// descriptors at 3…3+N-1, the status channel at 3+N and the start gate at
// 4+N. It returns 125 when it was not started by the supervisor or the
// supervisor gave up before opening the gate, 127 when the command could
// not be started (reported on the status channel), else 0.
func Main(args []string) int {
	runtime.LockOSThread() // the command's Pdeathsig follows this thread
	if os.Getenv(Env) != "1" {
		return 125 // not started by the supervisor: refuse to be anyone's reaper
	}
	_ = os.Unsetenv(Env)
	n, err := strconv.Atoi(firstOr(args, ""))
	if err != nil || n < 0 || len(args) < 3 {
		return 125
	}
	// Not dumpable: the command (same uid) can then neither reopen the
	// status channel through /proc/<reaper>/fd and forge the outcome, nor
	// read or trace the reaper. exec makes the command dumpable again. Only
	// a command with CAP_SYS_PTRACE (root's, under danger-full-access)
	// still can.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 125
	}
	// Only 0, 1, 2 and the command's own descriptors reach the command:
	// not the status channel, the gate, nor the image this reaper was
	// executed from, which it has no further use for.
	closeOwnImage(5 + n)
	cloexecFrom(3 + n)
	st, gate := os.NewFile(uintptr(3+n), "status"), os.NewFile(uintptr(4+n), "gate")
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if b := make([]byte, 1); readFull(gate, b) != nil {
		return 125 // the supervisor gave up before admitting us
	}
	_ = gate.Close()
	p, err := start(args[1], args[2:], n)
	if err != nil {
		_ = status.Write(st, startFailure(err))
		return 127
	}
	_ = status.Write(st, status.Event{Kind: status.Started, Pid: p.Pid})
	if ev := reapAll(p.Pid, sigs); ev != nil {
		_ = status.Write(st, *ev)
	}
	return 0
}

// closeOwnImage closes fd if it is the file this process was executed
// from (the carried image, passed there by the supervisor). Checked, not
// assumed: without an image the number may be one the runtime opened.
func closeOwnImage(fd int) {
	var img, self unix.Stat_t
	if unix.Fstat(fd, &img) == nil && unix.Stat("/proc/self/exe", &self) == nil &&
		img.Dev == self.Dev && img.Ino == self.Ino {
		_ = unix.Close(fd)
	}
}

// cloexecFrom marks every descriptor from lo up close-on-exec.
func cloexecFrom(lo int) {
	if unix.CloseRange(uint(lo), ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	ents, _ := os.ReadDir("/proc/self/fd") // kernels before 5.11
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= lo {
			unix.CloseOnExec(fd)
		}
	}
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

// start starts the command as the reaper was asked to: same environment
// and working directory as the reaper (the supervisor set them),
// descriptors 0, 1, 2 and 3…3+n-1, its own process group, and death with
// the reaper.
func start(path string, argv []string, n int) (*os.Process, error) {
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for i := range n {
		files = append(files, os.NewFile(uintptr(3+i), "extra"))
	}
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// On a terminal (only ever the new one the supervisor opened: it never
	// hands a user's terminal over), the command leads a session whose
	// controlling terminal it is, so Ctrl-C and Ctrl-Z reach its foreground
	// group. Its group is still its pid, which endAll kills.
	for fd, f := range files[:3] {
		if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			attr.Setpgid, attr.Setsid, attr.Setctty, attr.Ctty = false, true, true, fd
			break
		}
	}
	return os.StartProcess(path, argv, &os.ProcAttr{Env: os.Environ(), Files: files, Sys: attr})
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
// ended; while anything remains it is swept again every sweepInterval.
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
		ds := proctree.Descendants(os.Getpid())
		proctree.SignalAll(ds, syscall.SIGSTOP)
		proctree.SignalAll(ds, syscall.SIGKILL)
		if len(ds) == 0 {
			break
		}
	}
	return time.After(sweepInterval)
}

func exitEvent(ws syscall.WaitStatus) *status.Event {
	if ws.Signaled() {
		return &status.Event{Kind: status.Exited, Signal: unix.SignalName(ws.Signal())}
	}
	code := ws.ExitStatus()
	return &status.Event{Kind: status.Exited, ExitCode: &code}
}
