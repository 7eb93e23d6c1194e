package sandboxnet

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The listeners are plain non-blocking sockets wrapped in an os.File,
// which registers them with the runtime's poller: a goroutine waiting in
// accept or recvfrom holds no thread, as with package net. Package net
// itself is not used: it is most of the init's network code (≈220 KB of
// the carried blob, which every run maps whole; see
// internal/confine/initimage), for what these few calls do.

// backlog is listen(2)'s queue length: the kernel caps it at
// net.core.somaxconn, as package net's own choice would be capped.
const backlog = 1<<16 - 1

// pollSock is a socket served through the poller.
type pollSock struct {
	f  *os.File
	rc syscall.RawConn
}

// errClosed is a socket whose file is closed: its loop is over.
var errClosed = errors.New("socket closed")

// listenTCP listens on addr: on a loopback address as given; on the
// unspecified IPv4 address, on every address — IPv6 with IPV6_V6ONLY off
// (IPv4 arrives mapped), or IPv4 alone where this kernel has no IPv6, as
// package net listens on ":port".
func listenTCP(addr netip.AddrPort) (*pollSock, error) {
	if addr.Addr().IsUnspecified() {
		s, err := bound(unix.AF_INET6, unix.SOCK_STREAM, netip.AddrPortFrom(netip.IPv6Unspecified(), addr.Port()))
		if !errors.Is(err, unix.EAFNOSUPPORT) {
			return s, err
		}
	}
	return bound(unix.AF_INET, unix.SOCK_STREAM, addr)
}

// listenUDP binds a datagram socket to addr (an IPv4 address: the stub's).
func listenUDP(addr netip.AddrPort) (*pollSock, error) {
	return bound(unix.AF_INET, unix.SOCK_DGRAM, addr)
}

// bound makes the socket, binds it (SO_REUSEADDR, as package net sets on
// every listener) and, for a stream, listens.
func bound(family, typ int, addr netip.AddrPort) (*pollSock, error) {
	fd, err := unix.Socket(family, typ|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := setup(fd, family, typ, addr); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return newPollSock(fd, "listener")
}

func setup(fd, family, typ int, addr netip.AddrPort) error {
	var sa unix.Sockaddr
	switch {
	case family == unix.AF_INET && addr.Addr().Is4():
		sa = &unix.SockaddrInet4{Port: int(addr.Port()), Addr: addr.Addr().As4()}
	case family == unix.AF_INET6 && addr.Addr().Is6():
		sa = &unix.SockaddrInet6{Port: int(addr.Port()), Addr: addr.Addr().As16()}
	default:
		return fmt.Errorf("no socket of family %d for %v", family, addr)
	}
	if family == unix.AF_INET6 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if typ == unix.SOCK_STREAM {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
			return os.NewSyscallError("setsockopt", err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return os.NewSyscallError("bind", err)
	}
	if typ == unix.SOCK_STREAM {
		return os.NewSyscallError("listen", unix.Listen(fd, backlog))
	}
	return nil
}

// newPollSock wraps a non-blocking descriptor (it takes it over).
func newPollSock(fd int, name string) (*pollSock, error) {
	f := os.NewFile(uintptr(fd), name)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &pollSock{f: f, rc: rc}, nil
}

// osFile is an accepted connection as a file: non-blocking, so the
// poller serves it and its deadlines hold.
func osFile(fd int) *os.File { return os.NewFile(uintptr(fd), "conn") }

func (s *pollSock) Close() error { return s.f.Close() }

// accept waits for a connection and returns its descriptor (non-blocking,
// close-on-exec, as package net accepts). errClosed ends the loop; any
// other error is the kernel's answer for one connection.
func (s *pollSock) accept() (int, error) {
	nfd := -1
	var aerr error
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			nfd, _, aerr = unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			if aerr != unix.EINTR && aerr != unix.ECONNABORTED {
				return aerr != unix.EAGAIN
			}
		}
	})
	if err != nil {
		return -1, errClosed
	}
	return nfd, aerr
}

// recvFrom waits for a datagram.
func (s *pollSock) recvFrom(buf []byte) (int, unix.Sockaddr, error) {
	var n int
	var from unix.Sockaddr
	var rerr error
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			n, from, rerr = unix.Recvfrom(int(fd), buf, 0)
			if rerr != unix.EINTR {
				return rerr != unix.EAGAIN
			}
		}
	})
	if err != nil {
		return 0, nil, errClosed
	}
	return n, from, rerr
}

// sendTo sends a datagram, waiting for room.
func (s *pollSock) sendTo(b []byte, to unix.Sockaddr) error {
	var serr error
	err := s.rc.Write(func(fd uintptr) bool {
		for {
			serr = unix.Sendto(int(fd), b, 0, to)
			if serr != unix.EINTR {
				return serr != unix.EAGAIN
			}
		}
	})
	if err != nil {
		return errClosed
	}
	return serr
}

// localAddr is the address a connection was made to (a mapped IPv4
// address on a dual-stack listener stays mapped; netrule.CapturedHost
// unmaps it).
func localAddr(fd int) (netip.AddrPort, error) {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return netip.AddrPort{}, err
	}
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), uint16(sa.Port)), nil
	case *unix.SockaddrInet6:
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr), uint16(sa.Port)), nil
	}
	return netip.AddrPort{}, unix.EAFNOSUPPORT
}
