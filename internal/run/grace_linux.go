package run

import (
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// graceReader reads a pipe's (or terminal's) read end to EOF, or — once
// endGrace has set a past deadline on it — until it holds nothing more.
//
// When the grace is over the command's tree is dead, so everything it
// wrote is already in the pipe: ending the read by closing the end (as
// waitCopies once did) threw that away whenever the reading goroutine had
// not run yet. On a saturated supervisor (64 sessions on two cores, forks
// that hold a P for 10 ms each) that happened: `cat` exited 0 with its
// output gone, or the status channel was cut before "exited" and a run
// that succeeded read as a runner failure (conformance's TestLoad, a few
// calls in 2,000). Only what something that escaped every kill writes
// after the grace is not read.
type graceReader struct {
	f     *os.File
	final bool // the grace is over: read only what is buffered
	left  int  // bytes the final reads may still take
}

// DrainMax bounds what is read from a stream once the grace is over: all
// a dead tree can have left in a pipe (1 MiB, fs.pipe-max-size's default,
// the most F_SETPIPE_SZ gives an unprivileged command), and never an
// endless read of something that escaped and writes on.
const DrainMax = 1 << 20

func newGraceReader(f *os.File) *graceReader { return &graceReader{f: f, left: DrainMax} }

func (r *graceReader) Read(p []byte) (int, error) {
	if !r.final {
		n, err := r.f.Read(p)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		r.final = true
		if err := r.f.SetReadDeadline(time.Time{}); err != nil {
			return n, err
		}
		if n > 0 {
			return n, nil
		}
	}
	if r.left <= 0 {
		return 0, io.EOF
	}
	n, err := ReadBuffered(r.f, p[:min(len(p), r.left)])
	r.left -= n
	return n, err
}

// ReadBuffered reads what f holds now without waiting: io.EOF when it
// holds nothing (EAGAIN), at its end, or on a terminal whose other side
// is gone (EIO). f must have no read deadline in the past (RawConn.Read
// refuses it).
func ReadBuffered(f *os.File, p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = unix.Read(int(fd), p)
			if rerr != unix.EINTR {
				return true // never wait for more
			}
		}
	}); err != nil {
		return 0, err
	}
	if rerr != nil || n <= 0 {
		return 0, io.EOF
	}
	return n, nil
}

// endGrace ends the readers' waits: a reader blocked on a pipe (or one
// not yet run) reads what is buffered and stops. An end that takes no
// deadline (not pollable) is closed instead, as before.
func endGrace(files []*os.File) {
	now := time.Now()
	for _, f := range files {
		if f.SetReadDeadline(now) != nil {
			_ = f.Close()
		}
	}
}
