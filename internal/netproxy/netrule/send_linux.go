package netrule

import (
	"os"
	"syscall"
)

// Send hands one accepted connection over: the header and the descriptor
// in one message. The caller closes its copy afterwards.
func Send(sock *os.File, h Handoff, fd int) error {
	return syscall.Sendmsg(int(sock.Fd()), h.Encode(), syscall.UnixRights(fd), nil, 0)
}
