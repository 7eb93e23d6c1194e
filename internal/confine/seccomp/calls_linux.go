package seccomp

import (
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxSend bounds what a supervised sendto copies out of the target. Larger
// sends with a destination address are refused with EMSGSIZE (a datagram
// that large would not fit a default socket buffer anyway).
const maxSend = 1 << 20

func (s *supervisor) connect(t *target, n notif) (int64, unix.Errno) {
	sock, unixSock, errno := t.getSocket(int(int32(n.args[0])))
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(sock)
	raw, errno := readSockaddr(t, n.args[1], n.args[2])
	if errno != 0 {
		return 0, errno
	}
	abstract := s.abstractChecked(unixSock, raw)
	if abstract && isDatagram(sock) {
		return 0, unix.EACCES // no peer to check: see Rules.PeerCheckAbstract
	}
	dst, path, release, errno := s.destination(t, unixSock, raw)
	if errno != 0 {
		return 0, errno
	}
	defer release()
	connect := func() unix.Errno { return s.asSelf(func() unix.Errno { return rawConnect(sock, dst) }) }
	if !unixSock && s.rules.InetConnect != nil {
		// On a thread in the command's Landlock domain: its TCP rules
		// (the proxy's ports) hold this connect too, a second wall.
		errno = s.onConfined(connect)
	} else {
		errno = connect()
	}
	if errno != 0 {
		return 0, errno
	}
	if abstract {
		return 0, s.checkAbstractPeer(sock) // peer_linux.go
	}
	return 0, s.checkPeer(sock, path, dst) // peer_linux.go
}

func (s *supervisor) sendto(t *target, n notif) (int64, unix.Errno) {
	if n.args[2] > maxSend {
		return 0, unix.EMSGSIZE
	}
	sock, unixSock, errno := t.getSocket(int(int32(n.args[0])))
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(sock)
	raw, errno := readSockaddr(t, n.args[4], n.args[5])
	if errno != 0 {
		return 0, errno
	}
	if s.abstractChecked(unixSock, raw) {
		return 0, unix.EACCES // no peer to check: see Rules.PeerCheckAbstract
	}
	buf, errno := t.read(n.args[1], int(n.args[2]))
	if errno != 0 {
		return 0, errno
	}
	dst, _, release, errno := s.destination(t, unixSock, raw)
	if errno != 0 {
		return 0, errno
	}
	defer release()
	flags := int(int32(n.args[3]))
	var sent int
	errno = s.asSelf(func() unix.Errno {
		var e unix.Errno
		sent, e = rawSend(sock, buf, flags|unix.MSG_NOSIGNAL, dst)
		return e
	})
	if errno == unix.EPIPE && flags&unix.MSG_NOSIGNAL == 0 {
		// The signal the kernel would have sent the target, not us.
		_ = unix.PidfdSendSignal(t.pidfd, unix.SIGPIPE, nil, 0)
	}
	return int64(sent), errno
}

// readSockaddr copies the address a call names, refusing lengths the
// kernel itself would refuse.
func readSockaddr(t *target, addr, length uint64) ([]byte, unix.Errno) {
	l := int32(length) // socklen_t, an int in the kernel
	if l < 0 || l > maxSockaddr {
		return nil, unix.EINVAL
	}
	return t.read(addr, int(l))
}

// destination returns the address to use in the target's stead: raw as it
// is, unless the socket is AF_UNIX and raw names a path. For a filesystem
// unix socket it opens the path once (O_PATH, following links
// as connect would), checks the resolved path, and names the opened inode
// by /proc/self/fd/N, so nothing the target does afterwards — rewriting
// its buffer, swapping a symlink or a directory — changes what is reached.
// It also returns the checked path ("" for any other address).
func (s *supervisor) destination(t *target, unixSock bool, raw []byte) ([]byte, string, func(), unix.Errno) {
	if !unixSock && s.rules.InetConnect != nil {
		dst, errno := s.inetDestination(raw) // inet_linux.go
		if errno != 0 {
			return nil, "", nil, errno
		}
		return dst, "", func() {}, 0
	}
	kind, path := parseSockaddr(raw)
	if !unixSock || kind != addrPath {
		return raw, "", func() {}, 0
	}
	fd, errno := openSocketPath(t, path)
	if errno != 0 {
		return nil, "", nil, errno
	}
	release := func() { unix.Close(fd) }
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink(self, buf)
	if err != nil || n >= len(buf) || !allowed(s.allow, string(buf[:n])) {
		release()
		return nil, "", nil, unix.EACCES
	}
	return unixSockaddr(self), string(buf[:n]), release, 0
}

// allowed asks the caller, but only about a clean absolute path: readlink
// marks an unreachable or deleted inode with a form that is not one.
func allowed(allow func(string) bool, path string) bool {
	return strings.HasPrefix(path, "/") && !strings.HasSuffix(path, " (deleted)") && allow(path)
}

func openSocketPath(t *target, path string) (int, unix.Errno) {
	dir := unix.AT_FDCWD
	if !strings.HasPrefix(path, "/") {
		cwd, errno := t.openCwd()
		if errno != 0 {
			return -1, errno
		}
		defer unix.Close(cwd)
		dir = cwd
	}
	fd, err := unix.Openat(dir, path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, errnoOf(err, unix.EACCES)
	}
	return fd, 0
}

// rawConnect is connect(2) with a raw address, whatever its family.
func rawConnect(sock int, addr []byte) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), bytesPtr(addr), uintptr(len(addr)))
	return e
}

// rawSend is sendto(2) with a raw address, whatever its family.
func rawSend(sock int, buf []byte, flags int, addr []byte) (int, unix.Errno) {
	r, _, e := unix.Syscall6(unix.SYS_SENDTO, uintptr(sock), bytesPtr(buf), uintptr(len(buf)),
		uintptr(flags), bytesPtr(addr), uintptr(len(addr)))
	return int(r), e
}

func bytesPtr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&b[0]))
}
