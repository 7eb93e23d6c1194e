package seccomp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// SuperviseUnix is Supervise with only AllowUnix set: it answers the
// notifications of a filter built with DenyUnixConnect. allow is called with
// the absolute, symlink-free path of each filesystem unix socket a
// supervised call names, as seen from the supervisor's mount namespace; nil
// refuses them all. Refused calls fail with EACCES. Abstract and unnamed
// unix addresses, and every other address family, are carried out without
// asking allow.
func SuperviseUnix(ctx context.Context, listener *os.File, allow func(path string) bool) error {
	return Supervise(ctx, listener, Rules{AllowUnix: allow})
}

// Supervise answers the notifications of a filter built with
// DenyUnixConnect and/or GuardCreate until ctx is done (it returns
// ctx.Err()) or no task uses the filter any more (it returns nil).
//
// The supervisor performs each supervised call itself — on the target's
// own socket (pidfd_getfd), or relative to a parent directory it opened —
// with the address or path it checked, so it must run in the target's mount
// namespace, root and Landlock domain, with the target's credentials and no
// more privilege: in the sandbox init, with a /proc mounted for its pid
// namespace (else Supervise returns an error wrapping policy.ErrUnavailable
// at once). At the first creation it handles (GuardCreate) it sets the
// process umask to 0 (it applies each target's own umask itself), so the
// supervising process must create no files of its own afterwards. The caller keeps ownership of
// listener. See the package documentation for the gaps.
func Supervise(ctx context.Context, listener *os.File, r Rules) error {
	return supervise(ctx, listener, r, false)
}

// supervise is Supervise; racy (tests only) makes creation checks let the
// kernel continue instead of performing the call, to show that the race
// test can fail.
func supervise(ctx context.Context, listener *os.File, r Rules, racy bool) error {
	if r.AllowUnix == nil {
		r.AllowUnix = func(string) bool { return false }
	}
	if r.Protected != nil && r.Encloses == nil {
		return fmt.Errorf("%w: seccomp: Rules.Protected without Rules.Encloses", policy.ErrPolicy)
	}
	if r.Protected == nil {
		r.Protected, r.Encloses = func(string) bool { return false }, func(string) bool { return false }
	}
	if err := checkProc(); err != nil {
		return err
	}
	s := &supervisor{fd: int(listener.Fd()), allow: r.AllowUnix, rules: r, racy: racy, confined: make(chan job)}
	defer runtime.KeepAlive(listener)
	wakeR, stop, err := wakeOnDone(ctx)
	if err != nil {
		return err
	}
	defer stop()
	return s.loop(ctx, wakeR)
}

// checkProc makes sure /proc names tasks as procID says: the supervisor
// opens /proc/TID/mem with the tid the kernel gave it, and a /proc mounted
// for another namespace would name another task unless UseHostProc said
// so (then each tid is translated).
func checkProc() error {
	self, err := os.Readlink("/proc/self")
	if err != nil {
		return fmt.Errorf("%w: seccomp: no /proc: %v", policy.ErrUnavailable, err)
	}
	if id, err := procID(os.Getpid()); err != nil || id != self {
		return fmt.Errorf("%w: seccomp: /proc does not belong to this pid namespace", policy.ErrUnavailable)
	}
	return nil
}

// CheckProc is checkProc for the init, before it starts anything: a
// supervisor that cannot start must fail the set-up, not leave the
// command blocked in its first supervised call.
func CheckProc() error { return checkProc() }

type supervisor struct {
	fd    int
	allow func(path string) bool
	rules Rules
	racy  bool     // tests only: check, then let the kernel continue
	self  sync.Map // tids of our threads inside a supervised call
	umask sync.Once
	// confined hands calls to idle threads restricted by Rules.Confine.
	confined chan job
	// roots are Rules.Names' roots by inode (rootIDs).
	roots     map[fileID]string
	rootsOnce sync.Once
}

func (s *supervisor) loop(ctx context.Context, wakeR int) error {
	fds := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}, {Fd: int32(wakeR), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return os.NewSyscallError("poll", err)
		}
		switch {
		case fds[1].Revents != 0:
			return ctx.Err()
		case fds[0].Revents&unix.POLLIN != 0:
			n, err := recvNotif(s.fd)
			if err == unix.ENOENT { // the task died before we read it
				continue
			}
			if err != nil {
				return os.NewSyscallError("ioctl(SECCOMP_IOCTL_NOTIF_RECV)", err)
			}
			go s.handle(n)
		case fds[0].Revents != 0: // POLLHUP: the filter has no users left
			return nil
		}
	}
}

// wakeOnDone returns a descriptor that becomes readable when ctx is done.
func wakeOnDone(ctx context.Context) (int, func(), error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, nil, os.NewSyscallError("pipe2", err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_, _ = unix.Write(p[1], []byte{0})
		case <-done:
		}
	}()
	return p[0], func() { close(done); unix.Close(p[0]); unix.Close(p[1]) }, nil
}

// handle decides one notification and answers it. A reply can only fail
// because the task died, which needs no answer.
func (s *supervisor) handle(n notif) {
	r := s.decide(n)
	if r.flags == flagAnswered {
		return
	}
	_ = reply(s.fd, r)
}

func (s *supervisor) decide(n notif) notifResp {
	// Our own thread, performing a call on a target's behalf (the filter
	// covers the supervisor too when installed without ThisThread): let
	// the kernel run it. A target cannot forge the pid in a notification.
	if _, ok := s.self.Load(n.pid); ok {
		return answerContinue(n.id)
	}
	t, errno := openTarget(s.fd, n)
	if errno != 0 {
		return answerErrno(n.id, errno)
	}
	defer t.close()
	var v int64
	switch n.nr {
	case unix.SYS_CONNECT:
		v, errno = s.connect(t, n)
	case unix.SYS_SENDTO:
		v, errno = s.sendto(t, n)
	case unix.SYS_LISTEN:
		v, errno = s.listen(t, n) // inet_linux.go
	default:
		if r, ok := s.metaCall(t, n); ok { // meta_linux.go, dgram_linux.go
			return r
		}
		return s.create(t, n)
	}
	if errno != 0 {
		return answerErrno(n.id, errno)
	}
	return answerValue(n.id, v)
}

// asSelf runs call with this thread marked as the supervisor's own, so a
// notification it raises is let through rather than supervised again.
func (s *supervisor) asSelf(call func() unix.Errno) unix.Errno {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	s.self.Store(tid, struct{}{})
	defer s.self.Delete(tid)
	return call()
}
