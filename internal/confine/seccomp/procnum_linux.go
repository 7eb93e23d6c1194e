package seccomp

import (
	"os"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// hostProc is set (UseHostProc) when the supervisor's /proc numbers tasks
// as an ancestor pid namespace does: the linux backend's view where a
// fresh /proc is refused and the container's own is shown
// (initproc.ProcHost). Notifications carry tids of the supervisor's own
// namespace, so every /proc path is built from the translated number.
var hostProc atomic.Bool

// UseHostProc tells the supervisor that /proc is an ancestor namespace's:
// each task's /proc entry is found through a pidfd (procID). Call it
// before Supervise.
func UseHostProc() { hostProc.Store(true) }

// procID is the name of the task tid (a tid of this process's pid
// namespace) in /proc. Under a host /proc it is read from a pidfd's
// fdinfo, which the kernel writes in the numbering of the procfs it is
// read through; the pidfd pins the task's struct pid while it is read.
// Callers confirm the notification after opening what they built from it,
// as with the identity numbering: a live notification means the task, and
// so its number, has not gone.
func procID(tid int) (string, error) {
	if !hostProc.Load() {
		return strconv.Itoa(tid), nil
	}
	fd, err := unix.PidfdOpen(tid, unix.PIDFD_THREAD)
	if err == unix.EINVAL {
		fd, err = unix.PidfdOpen(tid, 0)
	}
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return "", err
	}
	return fdinfoPid(string(b))
}
