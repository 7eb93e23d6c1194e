package initproc

import (
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/status"
)

// sessionInit is the state of a session init: its control socket and the
// processes it started that have not been reported ended yet.
type sessionInit struct {
	ctl     int
	kids    chan struct{} // a token after each fork: the reaper has children again
	mu      sync.Mutex    // held across fork+register, so a reap finds its id
	byPid   map[int]uint64
	running map[uint64]int
	ptys    map[uint64]*os.File // the master of each terminal process, while its output flows
}

// serveSession runs on the init's main (locked, confined) thread: every
// command is forked from it, so each inherits exactly this thread's
// Landlock domain, seccomp filter, empty capability sets and
// no_new_privs, as a one-shot command does. It returns when the
// supervisor closes its end (Session.Close, or ringfence died): as pid 1
// the init's exit then ends every process of the session.
func serveSession(spec *Spec, st *os.File) int {
	if spec.Nest {
		// The exec stage is the landlock backend's; sessions are linux only.
		reportSetup(st, stage("session", errors.New("no session without a pid namespace")))
		return ExitSetup
	}
	if err := unix.Chdir(spec.Dir); err != nil {
		reportSetup(st, stage("chdir", err))
		return ExitSetup
	}
	// ignoreSignals leaves the signals a one-shot init forwards to its
	// command; a session has no one command, and a command must not end
	// its session by signalling pid 1 (Go's default for SIGTERM, SIGINT,
	// SIGHUP would exit): caught (beDeaf) and dropped too — never read,
	// the channel drops what does not fit.
	_ = beDeaf()
	watchParentDeath(spec.Parent)
	// The main goroutine is locked to the main thread and spends its time
	// blocked in recvmsg: with the one P the init runs with, the reaper
	// and signal goroutines would wait for sysmon to retake it (up to
	// 10 ms). A second P lets them run at once.
	runtime.GOMAXPROCS(2)
	s := &sessionInit{ctl: ControlFD(spec), kids: make(chan struct{}, 1), byPid: map[int]uint64{}, running: map[uint64]int{}, ptys: map[uint64]*os.File{}}
	if err := status.Write(st, status.Event{Kind: status.Exec}); err != nil {
		return ExitSetup
	}
	_ = status.Write(st, status.Event{Kind: status.Started, Pid: os.Getpid()})
	go s.reap()
	_ = s.send(&ControlMsg{Kind: ReportReady})
	s.serve()
	return 0
}

// serve reads requests until the supervisor's end closes.
func (s *sessionInit) serve() {
	buf := make([]byte, MaxControlMsg)
	oob := make([]byte, unix.CmsgSpace(3*4))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(s.ctl, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		fds := rights(oob[:oobn])
		m, err := DecodeRequest(buf[:n])
		if err == nil && flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
			err = errors.New("control: truncated message")
		}
		if err != nil {
			closeFds(fds)
			if m != nil || idOf(buf[:n]) != 0 {
				s.fail(idOf(buf[:n]), "request", unix.EINVAL)
			}
			continue
		}
		switch m.Op {
		case OpStart:
			s.start(m, fds)
		case OpSignal:
			closeFds(fds)
			s.signal(m)
		case OpResize:
			closeFds(fds)
			s.resize(m)
		}
	}
}

// start forks and executes one command with the three descriptors the
// supervisor passed as its 0, 1 and 2. It leads a process group of its
// own (a session on its terminal, when it has one), so Signal reaches what
// it started too.
func (s *sessionInit) start(m *ControlMsg, fds []int) {
	if len(fds) != 3 {
		closeFds(fds)
		s.fail(m.ID, "request", unix.EBADF)
		return
	}
	if m.Terminal != nil {
		s.startOnTerminal(m, fds)
		return
	}
	defer closeFds(fds)
	var tty [3]bool
	for i, fd := range fds {
		_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		tty[i] = err == nil
	}
	attr := childAttr(tty)
	attr.Setpgid = !attr.Setsid
	var st unix.Stat_t
	if err := unix.Stat(m.Dir, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		s.fail(m.ID, "chdir", unix.ENOTDIR)
		return
	}
	prog, err := lookPath(m.Argv[0], m.Env)
	if err != nil {
		s.execFailed(m.ID, err)
		return
	}
	files := []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.running[m.ID]; dup {
		s.fail(m.ID, "request", unix.EEXIST)
		return
	}
	pid, err := syscall.ForkExec(prog, m.Argv, &syscall.ProcAttr{Dir: m.Dir, Env: m.Env, Files: files, Sys: attr})
	if err != nil {
		s.execFailed(m.ID, err)
		return
	}
	s.byPid[pid], s.running[m.ID] = m.ID, pid
	select {
	case s.kids <- struct{}{}:
	default:
	}
	_ = s.send(&ControlMsg{ID: m.ID, Kind: status.Started, Event: &status.Event{Kind: status.Started, Pid: pid}})
}

// signal sends m.Sig to the group process m.ID leads, while it runs;
// SIGKILL ends its whole tree (killTree).
func (s *sessionInit) signal(m *ControlMsg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pid, ok := s.running[m.ID]
	if !ok {
		return // ended already: its pid may be another's now
	}
	if syscall.Signal(m.Sig) == syscall.SIGKILL {
		killTree(pid)
		return
	}
	if unix.Kill(-pid, syscall.Signal(m.Sig)) != nil {
		_ = unix.Kill(pid, syscall.Signal(m.Sig))
	}
}

// reap reaps every child of the init (the commands, and every orphan
// re-parented to it as pid 1) and reports the end of each command. It
// blocks in wait4 itself rather than waiting for SIGCHLD: a process's end
// is then reported without a signal and two goroutine wake-ups. With no
// child at all (ECHILD) it waits for the next fork.
func (s *sessionInit) reap() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.ECHILD):
			<-s.kids
		case err == nil && pid > 0:
			s.ended(pid, ws)
		}
	}
}

func (s *sessionInit) ended(pid int, ws unix.WaitStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.byPid[pid]
	if !ok {
		return // an orphan
	}
	delete(s.byPid, pid)
	delete(s.running, id)
	ev := status.Event{Kind: status.Exited}
	if ws.Signaled() {
		ev.Signal = unix.SignalName(ws.Signal())
	} else {
		code := ws.ExitStatus()
		ev.ExitCode = &code
	}
	_ = s.send(&ControlMsg{ID: id, Kind: status.Exited, Event: &ev})
}

func (s *sessionInit) execFailed(id uint64, err error) {
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
	_ = s.send(&ControlMsg{ID: id, Kind: status.Failed, Event: &ev})
}

func (s *sessionInit) fail(id uint64, stage string, errno syscall.Errno) {
	if id == 0 {
		return
	}
	ev := status.Event{Kind: status.Failed, Stage: stage, Reason: status.SetupFailed,
		Errno: unix.ErrnoName(errno), Detail: "the session refused the request: " + stage}
	_ = s.send(&ControlMsg{ID: id, Kind: status.Failed, Event: &ev})
}

// send writes one report. With write(2), not sendmsg: the command's
// seccomp filter, on the main thread, hands every sendmsg to the unix
// socket supervisor, which refuses a peer outside the sandbox (the
// supervisor's end is one); write on a connected SEQPACKET socket sends
// one record and is not supervised. Records are atomic, so the reaper and
// the main thread may write at once; a process's "started" is written
// before its "exited" (both under s.mu).
func (s *sessionInit) send(m *ControlMsg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	for {
		_, err = unix.Write(s.ctl, b)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// rights are the descriptors an SCM_RIGHTS message carried (already
// close-on-exec: MSG_CMSG_CLOEXEC).
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeFds(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}

// idOf is the id of a request that did not decode, to refuse it by name.
func idOf(b []byte) uint64 {
	var m struct {
		ID uint64 `json:"id"`
	}
	_ = json.Unmarshal(b, &m)
	return m.ID
}
