package initproc

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// Securebits that keep a process running as uid 0 in its user namespace
// from regaining capabilities by exec or by changing uid, each locked so
// the command cannot unset it (capabilities(7)).
const secureBits = 1<<0 | 1<<1 | // SECBIT_NOROOT, _LOCKED
	1<<2 | 1<<3 | // SECBIT_NO_SETUID_FIXUP, _LOCKED
	1<<5 | // SECBIT_KEEP_CAPS_LOCKED (KEEP_CAPS itself off)
	1<<6 | 1<<7 // SECBIT_NO_CAP_AMBIENT_RAISE, _LOCKED

// dropPrivileges leaves the command nothing to escalate with: locked
// securebits, an empty bounding set, no ambient or inheritable
// capabilities, and no effective or permitted ones, so even an exec as uid
// 0 of a file with capabilities yields none. Securebits and the bounding
// set are per thread: they are set on this (locked) thread, the one the
// command is forked from. The capability sets are cleared on every thread,
// and the init is made non-dumpable, so the command cannot borrow an init
// thread's privileges through /proc or ptrace either.
func dropPrivileges() error {
	hadCaps = anyCaps()
	if hadCaps {
		if err := dropBounding(); err != nil {
			return err
		}
	}
	// Without any capability there is nothing to lock or drop: setting
	// securebits or the bounding set needs CAP_SETPCAP, and no_new_privs
	// already keeps setuid and file capabilities from granting any.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	if err := capsetAllThreads(); err != nil {
		return err
	}
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

// dropBounding locks the securebits and empties the bounding set.
func dropBounding() error {
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secureBits, 0, 0, 0); err != nil {
		return err
	}
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == unix.EINVAL {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// capsetAllThreads empties every thread's capability sets. It costs a
// stop-the-world and a signal per thread, so it is skipped when the init
// never had a capability (the landlock backend run by a normal user):
// every thread started with this thread's (empty) sets.
func capsetAllThreads() error {
	hdr := &unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	data := new([2]unix.CapUserData)
	if !hadCaps {
		return nil
	}
	_, _, errno := psx.Syscall3(unix.SYS_CAPSET,
		uintptr(unsafe.Pointer(hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	runtime.KeepAlive(hdr)
	runtime.KeepAlive(data)
	if errno != 0 {
		return errno
	}
	return nil
}

// hadCaps records whether the init held any capability when it started
// dropping them.
var hadCaps = true

// anyCaps reports whether this thread holds any permitted capability (or
// cannot tell).
func anyCaps() bool {
	hdr := &unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(hdr, &data[0]); err != nil {
		return true
	}
	return data[0].Permitted|data[1].Permitted|data[0].Inheritable|data[1].Inheritable != 0
}
