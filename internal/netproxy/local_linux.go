package netproxy

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Local is the policy proxy's pair of listeners on the host's loopback,
// for a backend without a network namespace of its own (landlock): an
// HTTP proxy and a SOCKS5 proxy on 127.0.0.1 at ephemeral ports, in the
// supervisor. Each accepted connection is handed to a Session over a
// socket pair exactly as the linux backend's init hands over the
// connections its in-namespace listeners accept, so one code path decides
// and records every connection whichever backend runs.
//
// The listeners are reachable by any process on the host, not only by the
// sandbox: such a process gets what the sandbox's policy allows (it
// reaches the host's network anyway), and its connections are recorded
// with the run's. The sandbox reaches nothing else (the landlock backend's
// seccomp supervisor lets its IP sockets connect only here).
type Local struct {
	http, socks net.Listener
	send        *os.File // the accept loops' end of the handoff pair
	ses         *Session
	wg          sync.WaitGroup
}

// ListenLocal opens the two listeners. Nothing is served until Start;
// Close releases them if Start is never called.
func ListenLocal() (*Local, error) {
	h, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		h.Close()
		return nil, err
	}
	return &Local{http: h, socks: s}, nil
}

// Ports are the HTTP proxy's and the SOCKS5 proxy's ports on 127.0.0.1.
func (l *Local) Ports() (httpPort, socksPort uint16) {
	return uint16(l.http.Addr().(*net.TCPAddr).Port), uint16(l.socks.Addr().(*net.TCPAddr).Port)
}

// Start serves both listeners with p (copied, as Serve copies it; its
// Report still sees every decision).
func (l *Local) Start(p *Proxy) error {
	if l.ses != nil {
		return errors.New("netproxy: local proxy already started")
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return os.NewSyscallError("socketpair", err)
	}
	ses, err := Serve(p, os.NewFile(uintptr(fds[0]), "handoff-supervisor"))
	if err != nil {
		syscall.Close(fds[1])
		return err
	}
	l.ses, l.send = ses, os.NewFile(uintptr(fds[1]), "handoff-local")
	l.wg.Add(2)
	go l.accept(l.http, KindHTTP)
	go l.accept(l.socks, KindSOCKS5)
	return nil
}

// accept hands every connection ln accepts to the session until ln is
// closed.
func (l *Local) accept(ln net.Listener, kind Kind) {
	defer l.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // out of descriptors: let some close
			continue
		}
		l.handOver(c, kind)
	}
}

func (l *Local) handOver(c net.Conn, kind Kind) {
	defer c.Close()
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	f, err := tc.File()
	if err != nil {
		return
	}
	defer f.Close()
	_ = Send(l.send, Handoff{Kind: kind}, int(f.Fd()))
}

// Stop closes the listeners, ends the session (connections still open
// after grace are closed) and returns every decision made, as
// Session.Stop does.
func (l *Local) Stop(grace time.Duration) ([]Event, int) {
	l.Close()
	if l.ses == nil {
		return nil, 0
	}
	evs, dropped := l.ses.Stop(grace)
	l.send.Close()
	return evs, dropped
}

// Close closes the listeners (Stop also ends a started session).
func (l *Local) Close() {
	l.http.Close()
	l.socks.Close()
	l.wg.Wait()
}
