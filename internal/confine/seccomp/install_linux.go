package seccomp

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// Install sets no_new_privs and loads prog on the calling process: on every
// thread (SECCOMP_FILTER_FLAG_TSYNC) unless ThisThread is given. It returns
// the user-notification listener when prog can return USER_NOTIF (built
// with DenyUnixConnect), else nil. The filter cannot be removed: call it
// only in the process that will run (or fork) the confined command.
//
// A kernel without seccomp filters gives an error wrapping
// policy.ErrUnavailable; the caller must then not run the command.
func Install(prog []unix.SockFilter, flags ...Flag) (*os.File, error) {
	if len(prog) == 0 || len(prog) > unix.BPF_MAXINSNS {
		return nil, fmt.Errorf("%w: seccomp: program of %d instructions", policy.ErrPolicy, len(prog))
	}
	listen := needsListener(prog)
	var sflags uintptr
	if listen {
		// Once the supervisor has read a notification, only a fatal
		// signal interrupts the wait: otherwise a signal would restart
		// a connect the supervisor already performed (Linux 5.19+).
		sflags |= unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
	}
	if !hasFlag(flags, ThisThread) {
		sflags |= unix.SECCOMP_FILTER_FLAG_TSYNC
		if listen {
			// TSYNC's failure value is a thread id, which cannot be told
			// from a listener fd; TSYNC_ESRCH makes it an error instead.
			sflags |= unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH
		}
	}
	// no_new_privs is per thread (TSYNC copies it to the others), so both
	// calls must happen on one thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("%w: %w", policy.ErrUnavailable, os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", err))
	}
	fd, err := loadFilter(prog, sflags)
	if errors.Is(err, unix.EINVAL) && sflags&unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV != 0 {
		fd, err = loadFilter(prog, sflags&^unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", policy.ErrUnavailable, err)
	}
	if !listen {
		return nil, nil
	}
	return os.NewFile(uintptr(fd), "seccomp-notify"), nil
}

func loadFilter(prog []unix.SockFilter, flags uintptr) (int, error) {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, os.NewSyscallError("seccomp(SECCOMP_SET_MODE_FILTER)", errno)
	}
	if flags&unix.SECCOMP_FILTER_FLAG_TSYNC != 0 && flags&unix.SECCOMP_FILTER_FLAG_NEW_LISTENER == 0 && r != 0 {
		return -1, fmt.Errorf("seccomp: thread %d could not be synchronised", r)
	}
	return int(r), nil
}

// needsListener reports whether prog can return SECCOMP_RET_USER_NOTIF,
// in which case the kernel must be asked for a listener.
func needsListener(prog []SockFilter) bool {
	for _, ins := range prog {
		if ins.Code == opRet && ins.K&retActionFull == retUserNotif {
			return true
		}
	}
	return false
}

func hasFlag(flags []Flag, f Flag) bool {
	for _, g := range flags {
		if g&f != 0 {
			return true
		}
	}
	return false
}
