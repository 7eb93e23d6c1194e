package initproc

import (
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/status"
)

// startOnTerminal starts m on a new pseudo-terminal opened here, in the
// view's own devpts instance: inside the sandbox the command's terminal is
// /dev/pts/N (tty, ssh, REPLs find it by name), and the host's devpts is
// never involved, so no terminal of the host can be reached through it.
// fds[0] is relayed to the terminal's input, its output to fds[1]
// (fds[2] is unused); the master stays here for resizes until the
// terminal's output ends (every holder of its slave has closed it).
func (s *sessionInit) startOnTerminal(m *ControlMsg, fds []int) {
	_ = unix.Close(fds[2])
	in, out := fds[0], fds[1]
	master, slave, step, err := openViewPTY(*m.Terminal)
	if err != nil {
		closeFds([]int{in, out})
		s.fail(m.ID, "terminal "+step, errnoOf(err))
		return
	}
	var st unix.Stat_t
	if err := unix.Stat(m.Dir, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		closeFds([]int{in, out, master, slave})
		s.fail(m.ID, "chdir", unix.ENOTDIR)
		return
	}
	prog, err := lookPath(m.Argv[0], m.Env)
	if err != nil {
		closeFds([]int{in, out, master, slave})
		s.execFailed(m.ID, err)
		return
	}
	attr := childAttr([3]bool{true, true, true}) // a session of its own, the terminal its controlling one
	files := []uintptr{uintptr(slave), uintptr(slave), uintptr(slave)}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.running[m.ID]; dup {
		closeFds([]int{in, out, master, slave})
		s.fail(m.ID, "request", unix.EEXIST)
		return
	}
	pid, err := syscall.ForkExec(prog, m.Argv, &syscall.ProcAttr{Dir: m.Dir, Env: m.Env, Files: files, Sys: attr})
	_ = unix.Close(slave) // the command holds it now (or nobody does)
	if err != nil {
		closeFds([]int{in, out, master})
		s.execFailed(m.ID, err)
		return
	}
	mf, inf, outf := pollable(master, "ptmx"), pollable(in, "stdin"), pollable(out, "stdout")
	s.ptys[m.ID] = mf
	s.byPid[pid], s.running[m.ID] = m.ID, pid
	select {
	case s.kids <- struct{}{}:
	default:
	}
	_ = s.send(&ControlMsg{ID: m.ID, Kind: status.Started, Event: &status.Event{Kind: status.Started, Pid: pid}})
	// Input: until the supervisor closes its end (the process ended) or
	// the terminal is gone. End of input on a terminal is the EOF
	// character the supervisor types, never a close.
	go func() {
		_, _ = io.Copy(mf, inf)
		inf.Close()
	}()
	// Output: until the terminal's last holder closes it (EIO), then the
	// supervisor reads end-of-file; only then is the master released.
	go func() {
		_, _ = io.Copy(outf, mf)
		outf.Close()
		s.mu.Lock()
		delete(s.ptys, m.ID)
		s.mu.Unlock()
		mf.Close()
	}()
}

// resize sets the window size of m.ID's terminal; the kernel signals its
// foreground group (SIGWINCH).
func (s *sessionInit) resize(m *ControlMsg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.ptys[m.ID]; f != nil {
		_ = unix.IoctlSetWinsize(int(f.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: m.Terminal.Rows, Col: m.Terminal.Cols})
	}
}

// openViewPTY opens a pseudo-terminal pair from the view's private devpts
// (/dev/pts/ptmx), the slave reached from the master (TIOCGPTPEER), never
// by a path another process could swap; both close-on-exec.
//
// The open runs on another thread than the init's main one: the main
// thread carries the command's seccomp filter, whose write guard hands
// every O_RDWR open to the supervisor, which must read the caller's
// memory — and the init is not dumpable, so without privilege that read
// is refused (EACCES). The other threads are outside the filter (see doc,
// Threads), so what is opened is checked here instead: no link is
// followed, and it must be the devpts multiplexer itself (a character
// device 5:2) — /dev/pts is a mount point a command can neither move nor
// unmount, so nothing a command does can make this open another file.
func openViewPTY(size Winsize) (master, slave int, step string, err error) {
	type opened struct {
		fd  int
		err error
	}
	ch := make(chan opened, 1)
	go func() { // never on the main thread: that one is locked to the main goroutine
		fd, err := unix.Open("/dev/pts/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		ch <- opened{fd, err}
	}()
	o := <-ch
	if o.err != nil {
		return -1, -1, "open", o.err
	}
	master = o.fd
	var st unix.Stat_t
	if err := unix.Fstat(master, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR ||
		unix.Major(st.Rdev) != 5 || unix.Minor(st.Rdev) != 2 {
		unix.Close(master)
		return -1, -1, "open", unix.ENOTTY
	}
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(master)
		return -1, -1, "unlock", err
	}
	sfd, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(master), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
	if errno != 0 {
		unix.Close(master)
		return -1, -1, "peer", errno
	}
	if err := unix.IoctlSetWinsize(master, unix.TIOCSWINSZ, &unix.Winsize{Row: size.Rows, Col: size.Cols}); err != nil {
		unix.Close(master)
		unix.Close(int(sfd))
		return -1, -1, "size", err
	}
	return master, int(sfd), "", nil
}

// pollable makes fd non-blocking so Go's poller serves it: the relay's
// goroutines then never hold a thread each, and a close ends a read.
func pollable(fd int, name string) *os.File {
	_ = unix.SetNonblock(fd, true)
	return os.NewFile(uintptr(fd), name)
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EIO
}
