package seccomp

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// checkPeer runs after the supervisor connected the target's socket to the
// filesystem socket path (Rules.AllowUnix allowed it): unless
// Rules.AllowUnixHost names path, the process listening there must belong
// to the sandbox (Rules.PeerInside, asked with SO_PEERCRED's pid, which the
// kernel gives as 0 for a process outside the supervisor's pid namespace).
// A socket file inside a writable root that a host process (an IDE, a
// language server) listens on is a host socket as much as one outside.
//
// The check follows the connect because only a connected socket carries
// its peer's credentials, and probing with a connection of our own would
// take the one accept a sandbox server may make. A refused connection is
// shut down both ways before the target learns of it: the host process
// sees a connection that closes, never a byte from the target (which has
// not been told it is connected, and gets EACCES).
func (s *supervisor) checkPeer(sock int, path string, dst []byte) unix.Errno {
	if path == "" || s.rules.PeerInside == nil || (s.rules.AllowUnixHost != nil && s.rules.AllowUnixHost(path)) {
		return 0
	}
	// A connected datagram socket carries no peer credentials (pid 0
	// whoever bound the other end): it cannot be judged, and is let be
	// (a documented gap), or a command's own log socket would be refused.
	if typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE); err != nil || typ == unix.SOCK_DGRAM {
		return 0
	}
	cred, err := unix.GetsockoptUcred(sock, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err == nil && s.rules.PeerInside(cred.Pid) {
		return 0
	}
	if s.rules.PeerHeld != nil {
		// dst names the inode connected to as /proc/self/fd/N, still open.
		var st unix.Stat_t
		if _, magic := parseSockaddr(dst); unix.Stat(magic, &st) == nil && s.rules.PeerHeld(st.Dev, st.Ino) {
			return 0
		}
	}
	_ = unix.Shutdown(sock, unix.SHUT_RDWR)
	return unix.EACCES
}

// abstractChecked reports whether raw names an abstract unix socket that
// Rules.PeerCheckAbstract puts under the peer rule.
func (s *supervisor) abstractChecked(unixSock bool, raw []byte) bool {
	if !unixSock || !s.rules.PeerCheckAbstract || s.rules.PeerInside == nil || raw == nil {
		return false
	}
	kind, _ := parseSockaddr(raw)
	return kind == addrAbstract
}

func isDatagram(sock int) bool {
	typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	return err != nil || typ == unix.SOCK_DGRAM
}

// checkAbstractPeer runs after the supervisor connected the target's
// socket to an abstract address: the listener must belong to the sandbox
// (Rules.PeerInside). Without a network namespace of its own the sandbox
// shares the host's abstract socket names, so a host D-Bus bus or X server
// is one connect away. Shut down both ways when refused, as checkPeer does.
func (s *supervisor) checkAbstractPeer(sock int) unix.Errno {
	cred, err := unix.GetsockoptUcred(sock, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err == nil && s.rules.PeerInside(cred.Pid) {
		return 0
	}
	_ = unix.Shutdown(sock, unix.SHUT_RDWR)
	return unix.EACCES
}

// PeerInPidNamespace is Rules.PeerInside for a supervisor that shares the
// sandbox's own pid namespace (the linux backend's init, bwrap's shim):
// every process the supervisor can see is the sandbox's.
func PeerInPidNamespace(pid int32) bool { return pid > 0 }

// PeerDescendant returns Rules.PeerInside for a supervisor without a pid
// namespace of its own (the landlock backend's init, a child subreaper):
// the peer must be this process or descend from it. Orphans of the
// command are reparented to the subreaper, so none leaves the tree.
func PeerDescendant() func(pid int32) bool {
	self := int32(os.Getpid())
	return func(pid int32) bool {
		for hops := 0; pid > 1 && hops < 4096; hops++ {
			if pid == self {
				return true
			}
			pid = parentOf(pid)
		}
		return pid == self
	}
}

// parentOf reads a process's parent from /proc/PID/stat (0 if gone).
func parentOf(pid int32) int32 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return 0
	}
	// comm may hold spaces and parentheses: the fields follow the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0
	}
	return int32(ppid)
}
