package run

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/reaper"
	"github.com/ringfence/ringfence/internal/status"
)

// prepare builds the limiter, the pipes and the exec.Cmd.
func (s *session) prepare() error {
	c := s.c
	reaper := s.useReaper()
	pg := c.TreeKill != confine.KillPidNamespace && !inPidNamespace(c.SysProcAttr)
	s.lim, s.resources = newLimiter(s.o, pg)
	if t := s.o.Terminal; t != nil {
		term, err := openTerminal(t, s.o.Resize)
		if err != nil {
			return &StartError{Err: err}
		}
		s.term = term
		s.readers = append(s.readers, term.master)
		s.childEnds = append(s.childEnds, term.slave)
	}
	stdin, err := s.stdin()
	if err != nil {
		return &StartError{Err: err}
	}
	stdout, stderr, err := s.outputs()
	if err != nil {
		return &StartError{Err: err}
	}
	deathSig := syscall.SIGKILL
	if reaper {
		deathSig = syscall.SIGTERM // the reaper catches it and ends the tree
	}
	attr, group := procAttr(c, deathSig)
	s.group = group
	s.runner = reaper || c.Status != nil
	if s.term != nil && !s.runner {
		// The root is the command itself: it leads a session of its own
		// whose controlling terminal is the new one, so the terminal's
		// signals (Ctrl-C, Ctrl-Z, SIGWINCH) reach its foreground group. A
		// runner does the same for the command it starts.
		if fd, ok := ctty(s.ttyStreams()); ok {
			attr.Setpgid, attr.Setsid, attr.Setctty, attr.Ctty = false, true, true, fd
			s.group = true
		}
	}
	s.cmd = &exec.Cmd{
		Path: c.Path, Args: c.Args, Env: environ(c.Env), Dir: c.Dir,
		Stdin: stdin, Stdout: stdout, Stderr: stderr,
		ExtraFiles: c.ExtraFiles, SysProcAttr: attr,
	}
	s.childEnds = append(s.childEnds, c.ExtraFiles...)
	if s.lim != nil {
		s.lim.attr(attr)
	}
	if reaper {
		return s.wrapInReaper()
	}
	if c.Status != nil {
		s.readStatus(c.Status)
	}
	return nil
}

// useReaper reports whether this Cmd is started under the subreaper: asked
// for, a process-group Cmd, and no status channel of its own.
func (s *session) useReaper() bool {
	return s.o.Reaper && s.c.TreeKill != confine.KillPidNamespace &&
		!inPidNamespace(s.c.SysProcAttr) && s.c.Status == nil
}

// ttyStreams says which of the command's standard streams are the new
// terminal.
func (s *session) ttyStreams() [3]bool {
	t := s.o.Terminal
	if t == nil {
		return [3]bool{}
	}
	return [3]bool{t.Stdin, t.Stdout, t.Stderr}
}

// stdin returns the command's standard input as a file. Only a pipe or
// /dev/null is handed over (handOver, stdin.go); a terminal of the user's,
// a file, a directory, a socket or a device is read through a pipe (a
// terminal, with Options.Terminal, through the new terminal), so the
// command gets its bytes and nothing it could use the descriptor for.
func (s *session) stdin() (*os.File, error) {
	if s.term != nil && s.o.Terminal.Stdin {
		return s.term.slave, nil
	}
	switch in := s.o.Stdin.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		s.childEnds = append(s.childEnds, f)
		return f, err
	case *os.File:
		var st syscall.Stat_t
		if syscall.Fstat(int(in.Fd()), &st) == nil && handOver(st.Mode, uint64(st.Rdev)) { // stdin.go
			return in, nil
		}
		return s.pipeIn(in)
	default:
		return s.pipeIn(in)
	}
}

// pipeIn copies in to the command through a pipe.
func (s *session) pipeIn(in io.Reader) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.childEnds = append(s.childEnds, r)
	s.readers = append(s.readers, w)
	go func() {
		_, _ = io.Copy(w, in)
		_ = w.Close()
	}()
	return r, nil
}

// outputs makes the stdout and stderr pipes and their bounded captures.
func (s *session) outputs() (*os.File, *os.File, error) {
	outMax, errMax := ceilings(s.o)
	over := func() { s.overOnce.Do(func() { close(s.ceiling) }) }
	if s.o.KeepRunningPastCeiling {
		over = nil
	}
	s.out = newCapture(outMax, s.o.Stdout, over)
	s.errs = newCapture(errMax, s.o.Stderr, over)
	var ends [2]*os.File
	tty := s.ttyStreams()
	for i := range ends {
		if tty[i+1] {
			ends[i] = s.term.slave
			continue
		}
		r, w, err := os.Pipe()
		if err != nil {
			return nil, nil, err
		}
		s.readers = append(s.readers, r)
		s.childEnds = append(s.childEnds, w)
		s.pipes[i], ends[i] = r, w
	}
	return ends[0], ends[1], nil
}

// startCopies starts draining the output pipes.
func (s *session) startCopies() {
	for i, c := range []*capture{s.out, s.errs} {
		r := s.pipes[i]
		if r == nil {
			continue // this stream is the terminal
		}
		s.copies.Add(1)
		go func() { defer s.copies.Done(); drain(newGraceReader(r), c) }()
	}
	if s.term != nil {
		c := s.out
		if s.o.Terminal.outputStream() == 2 {
			c = s.errs
		}
		s.copies.Add(1)
		go func() { defer s.copies.Done(); drain(newGraceReader(s.term.master), c) }()
		if s.o.Terminal.Stdin {
			s.term.feed(s.o.Stdin)
		}
	}
}

// readStatus reads the status channel to EOF concurrently.
func (s *session) readStatus(f *os.File) {
	s.readers = append(s.readers, f)
	s.statusSummary = make(chan status.Summary, 1)
	s.copies.Add(1)
	go func() { defer s.copies.Done(); s.statusSummary <- status.Read(newGraceReader(f)) }()
}

// wrapInReaper starts the subreaper (internal/reaper) in place of the
// command; the reaper gets the command's descriptors at 3…, then a status
// pipe and a start gate after them, and, when it is executed from the
// carried image, that image after those.
func (s *session) wrapInReaper() error {
	c := s.c
	n := len(c.ExtraFiles)
	if slices.Contains(c.ExtraFiles, nil) {
		// os/exec leaves a nil entry's number closed in the reaper, where its
		// runtime may open a file of its own, which the command would inherit.
		return &StartError{Err: errors.New("run: a nil ExtraFiles entry cannot be passed through the reaper")}
	}
	// The reaper is executed from the carried image (internal/confine/
	// initimage, a sealed memfd: a small program) or from the image this
	// process runs (/proc/self/exe), never from the path ringfence was
	// installed at: a binary renamed over ours meanwhile must not run as the
	// reaper (with the supervisor's privileges, outside any sandbox). The
	// gentle stop recognises the reaper as a runner by the image it runs
	// (gentleTargets).
	path, image, err := initimage.ForChild(5 + n)
	if err != nil {
		return &StartError{Err: err}
	}
	if image == nil && !dispatched() {
		return &StartError{Err: ErrReaperNotDispatched}
	}
	ends := []*os.File{}
	if image != nil {
		ends = append(ends, image) // closed once the reaper has started
	}
	exe, err := os.Executable()
	if err != nil {
		closeAll(ends)
		return &StartError{Err: err}
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		closeAll(ends)
		return &StartError{Err: err}
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		closeAll(append(ends, statusR, statusW))
		return &StartError{Err: err}
	}
	args := append([]string{exe, reaper.Arg, strconv.Itoa(n), c.Path}, argv(c)...)
	s.cmd.Path, s.cmd.Args = path, args
	s.cmd.Env = append(append([]string{}, environ(c.Env)...), reaper.Env+"=1")
	s.cmd.ExtraFiles = append(append([]*os.File{}, c.ExtraFiles...), statusW, gateR)
	s.cmd.ExtraFiles = append(s.cmd.ExtraFiles, ends...)
	s.childEnds = append(s.childEnds, statusW, gateR)
	s.childEnds = append(s.childEnds, ends...)
	s.gate = gateW
	s.readStatus(statusR)
	return nil
}

// argv returns the command's argv, defaulting argv[0] to the path.
func argv(c *confine.Cmd) []string {
	if len(c.Args) == 0 {
		return []string{c.Path}
	}
	return c.Args
}
