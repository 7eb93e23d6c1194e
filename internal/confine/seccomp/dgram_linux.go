package seccomp

import (
	"encoding/binary"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Layouts of struct msghdr, mmsghdr, iovec and cmsghdr on the 64-bit
// architectures the filter supports.
const (
	msghdrSize  = 56
	mmsghdrSize = 64
	iovecSize   = 16
	cmsgHdrSize = 16
	uioMaxIov   = 1024
	maxControl  = 64 << 10 // more than any optmem_max a host sets
)

// sentMsg is a message copied out of the target, ready to send from here.
type sentMsg struct {
	name    []byte // destination address, nil for none
	data    []byte
	control []byte // with SCM_RIGHTS descriptors already ours
	fds     []int  // ours, to close after sending
}

func (m *sentMsg) close() {
	for _, fd := range m.fds {
		unix.Close(fd)
	}
}

// sendmsg performs the target's sendmsg itself, on its own socket (shared
// with pidfd_getfd), with the message copied once: the destination, if
// any, is checked as a connect's (Rules.AllowUnix, peer), and the kernel
// never reads the target's memory for this call, so rewriting msg_name
// after the check changes nothing. Every sendmsg comes here (the filter
// cannot see msg_name, and letting a call without one continue would let
// another thread add one before the kernel reads it); those without a
// destination cost a round trip and a copy, no lookup.
func (s *supervisor) sendmsg(t *target, n notif) (int64, unix.Errno) {
	sock, unixSock, errno := t.getSocket(int(int32(n.args[0])))
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(sock)
	return s.sendOne(t, sock, unixSock, n.args[1], int(int32(n.args[2])))
}

// sendmmsg sends each message as sendmsg would and writes each msg_len
// back, returning how many were sent; an error after the first message
// ends the batch with the count so far, as the kernel does.
func (s *supervisor) sendmmsg(t *target, n notif) (int64, unix.Errno) {
	sock, unixSock, errno := t.getSocket(int(int32(n.args[0])))
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(sock)
	vlen := min(uint32(n.args[2]), uioMaxIov)
	flags := int(int32(n.args[3]))
	var sent int64
	for i := range uint64(vlen) {
		addr := n.args[1] + i*mmsghdrSize
		v, errno := s.sendOne(t, sock, unixSock, addr, flags)
		if errno != 0 {
			if sent == 0 {
				return 0, errno
			}
			break
		}
		var b [4]byte
		binary.NativeEndian.PutUint32(b[:], uint32(v))
		if errno := t.write(addr+msghdrSize, b[:]); errno != 0 {
			// As the kernel: a msg_len it cannot store ends the batch
			// uncounted, and fails the call if it was the first.
			if sent == 0 {
				return 0, errno
			}
			break
		}
		sent++
	}
	return sent, 0
}

// sendOne copies the msghdr at addr and sends it from here.
func (s *supervisor) sendOne(t *target, sock int, unixSock bool, addr uint64, flags int) (int64, unix.Errno) {
	typ, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return 0, unix.ENOTSOCK
	}
	m, errno := t.readMsg(addr, unixSock, typ == unix.SOCK_STREAM)
	if errno != 0 {
		return 0, errno
	}
	defer m.close()
	name := m.name
	if s.abstractChecked(unixSock, name) {
		return 0, unix.EACCES // no peer to check: see Rules.PeerCheckAbstract
	}
	if name != nil {
		dst, _, release, errno := s.destination(t, unixSock, name)
		if errno != 0 {
			return 0, errno
		}
		defer release()
		name = dst
	}
	var sent int
	errno = s.asSelf(func() unix.Errno {
		var e unix.Errno
		sent, e = rawSendmsg(sock, name, m.data, m.control, flags|unix.MSG_NOSIGNAL)
		return e
	})
	if errno == unix.EPIPE && flags&unix.MSG_NOSIGNAL == 0 {
		_ = unix.PidfdSendSignal(t.pidfd, unix.SIGPIPE, nil, 0)
	}
	return int64(sent), errno
}

// readMsg copies a msghdr, its iovecs (at most maxSend bytes in all: a
// stream send is cut there, as a short send may be; a datagram that large
// fails with EMSGSIZE) and its control data, taking every SCM_RIGHTS
// descriptor the target passes.
func (t *target) readMsg(addr uint64, unixSock, stream bool) (*sentMsg, unix.Errno) {
	h, errno := t.read(addr, msghdrSize)
	if errno != 0 {
		return nil, errno
	}
	u64 := func(off int) uint64 { return binary.NativeEndian.Uint64(h[off:]) }
	m := &sentMsg{}
	if nameAddr, nameLen := u64(0), uint64(binary.NativeEndian.Uint32(h[8:])); nameAddr != 0 && nameLen != 0 {
		if m.name, errno = readSockaddr(t, nameAddr, nameLen); errno != 0 {
			return nil, errno
		}
	}
	iovAddr, iovLen := u64(16), u64(24)
	if iovLen > uioMaxIov {
		return nil, unix.EMSGSIZE
	}
	iovs, errno := t.read(iovAddr, int(iovLen)*iovecSize)
	if errno != 0 {
		return nil, errno
	}
	for i := range int(iovLen) {
		base, l := binary.NativeEndian.Uint64(iovs[i*iovecSize:]), binary.NativeEndian.Uint64(iovs[i*iovecSize+8:])
		if left := uint64(maxSend - len(m.data)); l > left {
			if !stream {
				return nil, unix.EMSGSIZE
			}
			l = left
		}
		b, errno := t.read(base, int(l))
		if errno != 0 {
			return nil, errno
		}
		m.data = append(m.data, b...)
	}
	ctlAddr, ctlLen := u64(32), u64(40)
	if ctlAddr != 0 && ctlLen != 0 {
		if ctlLen > maxControl {
			return nil, unix.ENOBUFS
		}
		if m.control, errno = t.read(ctlAddr, int(ctlLen)); errno != 0 {
			return nil, errno
		}
		if errno = t.takeRights(m, unixSock); errno != 0 {
			m.close()
			return nil, errno
		}
	}
	return m, 0
}

// takeRights replaces each descriptor an SCM_RIGHTS message names (the
// target's numbers) by a copy in this process. Other control messages
// are sent as they are (SCM_CREDENTIALS then names the target's pid, which
// the kernel refuses from us: EPERM, see the package documentation).
func (t *target) takeRights(m *sentMsg, unixSock bool) unix.Errno {
	slots, ok := rightsSlots(m.control)
	switch {
	case !ok:
		return unix.EINVAL
	case !unixSock:
		return 0
	}
	for _, p := range slots {
		fd, errno := t.getfd(int(int32(binary.NativeEndian.Uint32(m.control[p:]))))
		if errno != 0 {
			return errno
		}
		m.fds = append(m.fds, fd)
		binary.NativeEndian.PutUint32(m.control[p:], uint32(fd))
	}
	return 0
}

// write copies b into the target's memory at addr (sendmmsg's msg_len).
// Through /proc/TID/mem when it opens for writing: the handle, confirmed
// by the notification after it was opened, reaches that task's memory
// even if the pid were reused later. Else (the linux backend mounts /proc
// read-only; its supervisor is not filtered) with process_vm_writev by
// pid, with the notification confirmed just before and after: a task
// blocked in a supervised call keeps its pid unless it is killed, and a
// pid reused in that window is one of the sandbox's own processes.
func (t *target) write(addr uint64, b []byte) unix.Errno {
	if addr > 1<<62 {
		return unix.EFAULT
	}
	if f, err := os.OpenFile("/proc/"+t.pid+"/mem", os.O_WRONLY, 0); err == nil {
		defer f.Close()
		if !idValid(t.listener, t.id) {
			return unix.ESRCH
		}
		if _, err := f.WriteAt(b, int64(addr)); err != nil {
			return unix.EFAULT
		}
		return 0
	}
	if !idValid(t.listener, t.id) {
		return unix.ESRCH
	}
	iov := []unix.Iovec{{Base: &b[0]}}
	iov[0].SetLen(len(b))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(b)}}
	if n, err := unix.ProcessVMWritev(t.tid, iov, remote, 0); err != nil || n != len(b) {
		return unix.EFAULT
	}
	if !idValid(t.listener, t.id) {
		return unix.ESRCH
	}
	return 0
}

// rawSendmsg is sendmsg(2) with a raw address, whatever its family.
func rawSendmsg(sock int, name, data, control []byte, flags int) (int, unix.Errno) {
	var h unix.Msghdr
	if len(name) > 0 {
		h.Name = &name[0]
		h.Namelen = uint32(len(name))
	}
	var iov unix.Iovec
	if len(data) > 0 {
		iov.Base = &data[0]
		iov.SetLen(len(data))
		h.Iov = &iov
		h.SetIovlen(1)
	}
	if len(control) > 0 {
		h.Control = &control[0]
		h.SetControllen(len(control))
	}
	r, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(sock), uintptr(unsafe.Pointer(&h)), uintptr(flags))
	return int(r), e
}
