package linux

import (
	"os"
	"syscall"
)

// sysProcAttr starts the init in fresh user, mount, pid, ipc and uts
// namespaces (and net, unless newNet is false), mapping the caller's own
// uid and gid to themselves, so the command keeps the caller's identity
// and the same code works as root and not.
//
// A process that is not uid 0 in its user namespace loses its
// capabilities there at exec, so the few the init needs to build the
// view are passed as ambient capabilities (the init drops every one of
// them, ambient included, before the command runs).
func sysProcAttr(newNet bool) *syscall.SysProcAttr {
	flags := uintptr(syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
		syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS)
	if newNet {
		flags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:  flags,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		// No controlling terminal: nothing to inject keystrokes into.
		Setsid:    true,
		Pdeathsig: syscall.SIGKILL,
		// CAP_DAC_OVERRIDE: overlayfs makes its work directory mode 000 and
		// must still use it; it can override only for inodes of the one
		// mapped uid, and the overlay checks the command's own credentials
		// first on every access.
		AmbientCaps: []uintptr{capSysAdmin, capNetAdmin, capSetpcap, capDacOverride},
	}
}

// Capability numbers (capability.h).
const (
	capDacOverride = 1
	capSetpcap     = 8
	capNetAdmin    = 12
	capSysAdmin    = 21
)

// capNetBindService lets the init bind the DNS stub (53) and the capture
// listeners below 1024 under the domains network.
const capNetBindService = 10

// withBindService adds CAP_NET_BIND_SERVICE to the init's ambient set
// (dropped with the rest before the command runs).
func withBindService(a *syscall.SysProcAttr) {
	a.AmbientCaps = append(a.AmbientCaps, capNetBindService)
}
