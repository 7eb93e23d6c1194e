package seccomp

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// target holds handles on the task blocked in a supervised call. Each is
// opened by pid and then confirmed with SECCOMP_IOCTL_NOTIF_ID_VALID: while
// the notification is live the task cannot have exited, so its pid cannot
// have been reused by another process.
type target struct {
	listener int
	id       uint64
	tid      int
	pid      string // the task's name in /proc (procID): tid, or its number in a host /proc
	pidfd    int
	mem      *os.File
}

func openTarget(listener int, n notif) (*target, unix.Errno) {
	t := &target{listener: listener, id: n.id, tid: int(n.pid), pidfd: -1}
	// PIDFD_THREAD (Linux 6.9) names the very thread, whose descriptor
	// table may differ from its leader's; older kernels take leaders only.
	fd, err := unix.PidfdOpen(t.tid, unix.PIDFD_THREAD)
	if err == unix.EINVAL {
		fd, err = unix.PidfdOpen(t.tid, 0)
	}
	if err != nil {
		return nil, errnoOf(err, unix.EPERM)
	}
	t.pidfd = fd
	if t.pid, err = procID(t.tid); err != nil {
		t.close()
		return nil, unix.ESRCH
	}
	t.mem, err = os.Open("/proc/" + t.pid + "/mem")
	if err != nil {
		t.close()
		return nil, errnoOf(err, unix.EPERM)
	}
	if !idValid(listener, n.id) {
		t.close()
		return nil, unix.ESRCH
	}
	return t, 0
}

func (t *target) close() {
	if t.mem != nil {
		t.mem.Close()
	}
	if t.pidfd >= 0 {
		unix.Close(t.pidfd)
	}
}

// read copies n bytes at addr out of the target's memory; a bad pointer is
// EFAULT, as the kernel would have said.
func (t *target) read(addr uint64, n int) ([]byte, unix.Errno) {
	b := make([]byte, n)
	if n == 0 {
		return b, 0
	}
	if addr > 1<<62 {
		return nil, unix.EFAULT
	}
	if _, err := t.mem.ReadAt(b, int64(addr)); err != nil {
		return nil, unix.EFAULT
	}
	return b, 0
}

// getfd duplicates the target's descriptor into this process. The copy
// shares the open file description: connecting it connects theirs.
func (t *target) getfd(fd int) (int, unix.Errno) {
	if fd < 0 {
		return -1, unix.EBADF
	}
	dup, err := unix.PidfdGetfd(t.pidfd, fd, 0)
	if err != nil {
		return -1, errnoOf(err, unix.EBADF)
	}
	return dup, 0
}

// getSocket is getfd for a socket, failing as connect(2) would on another
// kind of descriptor, and saying whether it is a unix socket.
func (t *target) getSocket(fd int) (int, bool, unix.Errno) {
	dup, errno := t.getfd(fd)
	if errno != 0 {
		return -1, false, errno
	}
	domain, err := unix.GetsockoptInt(dup, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		unix.Close(dup)
		return -1, false, errnoOf(err, unix.ENOTSOCK)
	}
	return dup, domain == unix.AF_UNIX, 0
}

// openCwd opens the target's working directory, for relative socket paths.
func (t *target) openCwd() (int, unix.Errno) {
	fd, err := unix.Open("/proc/"+t.pid+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, errnoOf(err, unix.EACCES)
	}
	if !idValid(t.listener, t.id) {
		unix.Close(fd)
		return -1, unix.ESRCH
	}
	return fd, 0
}

// errnoOf extracts the errno behind err, or returns def.
func errnoOf(err error, def unix.Errno) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return def
}
