package sandboxnet

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
	"github.com/ringfence/ringfence/internal/testenv"
	"golang.org/x/sys/unix"
)

// port is the port the kernel gave a listener bound to port 0.
func port(t *testing.T, s *pollSock) int {
	t.Helper()
	var p int
	var err error
	if cerr := s.rc.Control(func(fd uintptr) {
		var sa unix.Sockaddr
		if sa, err = unix.Getsockname(int(fd)); err == nil {
			switch sa := sa.(type) {
			case *unix.SockaddrInet4:
				p = sa.Port
			case *unix.SockaddrInet6:
				p = sa.Port
			}
		}
	}); cerr != nil || err != nil || p == 0 {
		t.Fatalf("getsockname: %v %v %d", cerr, err, p)
	}
	return p
}

// acceptOne accepts the connection dial makes and returns the address it
// was made to, as the capture listener reads it.
func acceptOne(t *testing.T, ln *pollSock, dial string) netip.AddrPort {
	t.Helper()
	c, err := net.DialTimeout("tcp", dial, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fd, err := ln.accept()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC == 0 {
		t.Errorf("accepted descriptor not close-on-exec (%v): the command could inherit it", err)
	}
	ap, err := localAddr(fd)
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// A loopback listener accepts on its address only, and reports the
// address a connection was made to.
func TestListenLoopback(t *testing.T) {
	ln, err := listenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p := port(t, ln)
	if got := acceptOne(t, ln, "127.0.0.1:"+strconv.Itoa(p)); got.String() != "127.0.0.1:"+strconv.Itoa(p) {
		t.Fatalf("local address %v", got)
	}
	if c, err := net.DialTimeout("tcp", "[::1]:"+strconv.Itoa(p), time.Second); err == nil {
		c.Close()
		t.Fatal("a 127.0.0.1 listener accepted on ::1")
	}
}

// A capture listener (the unspecified address) takes IPv4 and IPv6 alike,
// as package net's ":port" did, and the captured host is the plain
// address either way.
func TestListenEveryAddress(t *testing.T) {
	ln, err := listenTCP(netip.AddrPortFrom(netip.IPv4Unspecified(), 0))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p := strconv.Itoa(port(t, ln))
	if got := acceptOne(t, ln, "127.0.0.1:"+p); netrule.CapturedHost(got.Addr(), nil) != "127.0.0.1" {
		t.Fatalf("IPv4 connect seen as %v", got)
	}
	probe, err := net.Listen("tcp", "[::1]:0")
	testenv.Need(t, "an IPv6 loopback", err)
	probe.Close()
	if got := acceptOne(t, ln, "[::1]:"+p); netrule.CapturedHost(got.Addr(), nil) != "::1" {
		t.Fatalf("IPv6 connect seen as %v", got)
	}
}

// The DNS stub's socket answers the sender of each datagram.
func TestUDPRoundTrip(t *testing.T) {
	s, err := listenUDP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("udp", "127.0.0.1:"+strconv.Itoa(port(t, s)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, from, err := s.recvFrom(buf)
	if err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("recvFrom: %q %v", buf[:n], err)
	}
	if err := s.sendTo([]byte("pong"), from); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("reply: %q %v", buf[:n], err)
	}
}

// Closing a listener ends a loop blocked in accept (Serve closes what it
// opened when a later listener fails): the loop must see errClosed, which
// retryable does not retry.
func TestCloseEndsAccept(t *testing.T) {
	ln, err := listenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := ln.accept()
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	ln.Close()
	select {
	case err := <-done:
		if !errors.Is(err, errClosed) || retryable(err) {
			t.Fatalf("accept after close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("accept still blocked after close")
	}
}

// A port already taken is an error naming bind, not a listener.
func TestListenTaken(t *testing.T) {
	ln, err := listenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = listenTCP(netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(port(t, ln))))
	if !errors.Is(err, unix.EADDRINUSE) {
		t.Fatalf("second listener on a taken port: %v", err)
	}
}
