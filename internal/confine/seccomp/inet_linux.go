package seccomp

import "golang.org/x/sys/unix"

// inetDestination is destination for an IP socket under Rules.InetConnect:
// the address the supervisor uses, built from the one it read once and
// checked (never the target's bytes, which another thread may rewrite).
func (s *supervisor) inetDestination(raw []byte) ([]byte, unix.Errno) {
	dst, errno := inetDecision(s.rules.InetConnect, raw)
	return dst, unix.Errno(errno)
}

// listen answers a supervised listen(2) (Options.GuardListen): refused on
// an IP socket under Rules.InetConnect — a sandbox that shares the host's
// network may not accept connections from it, and Landlock's bind rule
// misses an ephemeral port (bind to port 0, or listen's implicit bind) —
// and performed on the target's own socket otherwise. Performed, not
// continued: the descriptor number could name another socket by the time
// the kernel ran the call again.
func (s *supervisor) listen(t *target, n notif) (int64, unix.Errno) {
	sock, unixSock, errno := t.getSocket(int(int32(n.args[0])))
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(sock)
	if !unixSock && s.rules.InetConnect != nil {
		return 0, unix.EACCES
	}
	backlog := int(int32(n.args[1]))
	return 0, s.asSelf(func() unix.Errno {
		if err := unix.Listen(sock, backlog); err != nil {
			return errnoOf(err, unix.EINVAL)
		}
		return 0
	})
}
