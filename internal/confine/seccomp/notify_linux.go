package seccomp

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// notif is struct seccomp_notif (80 bytes); x/sys/unix does not define it.
type notif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// notifResp is struct seccomp_notif_resp (24 bytes).
type notifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

func ioctlPtr(fd int, req uint, p unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(p))
	if errno != 0 {
		return errno
	}
	return nil
}

// recvNotif reads one notification. The kernel requires a zeroed buffer.
func recvNotif(fd int) (notif, error) {
	var n notif
	for {
		err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n))
		if err != unix.EINTR {
			return n, err
		}
		n = notif{}
	}
}

// idValid reports whether the notification's task is still blocked in the
// syscall, i.e. that every pid-based handle opened before the call refers
// to that task and not to a process that reused its pid.
func idValid(fd int, id uint64) bool {
	return ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// reply answers a notification: a return value, an errno, or "continue".
// ENOENT (the task was killed meanwhile) is not an error worth reporting.
func reply(fd int, r notifResp) error {
	err := ioctlPtr(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r))
	if err != nil && err != unix.ENOENT {
		return os.NewSyscallError("ioctl(SECCOMP_IOCTL_NOTIF_SEND)", err)
	}
	return nil
}

// flagAnswered marks a notifResp that must not be sent: the call is
// no longer waiting for one (its target is gone).
// It is no flag the kernel knows, and is never passed to it.
const flagAnswered = 1 << 31

func answered() notifResp { return notifResp{flags: flagAnswered} }

func answerErrno(id uint64, errno unix.Errno) notifResp {
	return notifResp{id: id, error: -int32(errno)}
}

func answerValue(id uint64, v int64) notifResp { return notifResp{id: id, val: v} }

func answerContinue(id uint64) notifResp {
	return notifResp{id: id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
}
