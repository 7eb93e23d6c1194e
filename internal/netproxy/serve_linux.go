package netproxy

import (
	"context"
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
)

// MaxEvents bounds the decisions one run records: a loop that connects a
// million times is reported as its first MaxEvents decisions (and Dropped).
const MaxEvents = 1000

// MaxConns bounds the connections one run has open through the proxy at
// once; more are closed as soon as they arrive (the command sees a reset).
const MaxConns = 512

// Session serves the connections a sandbox's init hands over on one end
// of a socket pair, until Stop. It records every decision.
type Session struct {
	proxy  Proxy
	conn   *net.UnixConn
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	events  []Event
	dropped int
	open    map[net.Conn]struct{}
	wg      sync.WaitGroup
}

// Serve starts serving handoffs arriving on f (the supervisor's end of
// the socket pair; Serve takes it over). p is copied; its Report, if any,
// is still called for every decision.
func Serve(p *Proxy, f *os.File) (*Session, error) {
	fc, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	uc, ok := fc.(*net.UnixConn)
	if !ok {
		fc.Close()
		return nil, errHandoff
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{proxy: *p, conn: uc, cancel: cancel, done: make(chan struct{}), open: map[net.Conn]struct{}{}}
	outer := p.Report
	s.proxy.Report = func(e Event) {
		s.record(e)
		if outer != nil {
			outer(e)
		}
	}
	go s.loop(ctx)
	return s, nil
}

func (s *Session) record(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.events) >= MaxEvents {
		s.dropped++
		return
	}
	s.events = append(s.events, e)
}

func (s *Session) loop(ctx context.Context) {
	defer close(s.done)
	buf := make([]byte, MaxHandoff+1)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	for {
		n, oobn, flags, _, err := s.conn.ReadMsgUnix(buf, oob)
		if err != nil {
			return // the init is gone (EOF) or Stop closed the socket
		}
		fds := receivedFDs(oob[:oobn])
		if flags&(syscall.MSG_CTRUNC|syscall.MSG_TRUNC) != 0 || len(fds) != 1 {
			closeAll(fds)
			continue
		}
		h, err := DecodeHandoff(buf[:n])
		if err != nil {
			closeAll(fds)
			continue
		}
		// One owner for the descriptor: the os.File closes it (a raw close
		// here would leave its finalizer to close a reused number later).
		f := os.NewFile(uintptr(fds[0]), "handoff")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			continue
		}
		if !s.track(c) {
			c.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.untrack(c)
			s.serveOne(ctx, h, c)
		}()
	}
}

func (s *Session) serveOne(ctx context.Context, h Handoff, c net.Conn) {
	switch h.Kind {
	case KindHTTP:
		s.proxy.ServeHTTP(ctx, c)
	case KindSOCKS5:
		s.proxy.ServeSOCKS5(ctx, c)
	case KindCaptured:
		t, err := h.Target()
		if err != nil {
			c.Close()
			return
		}
		s.proxy.ServeCaptured(ctx, c, t)
	}
}

func (s *Session) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.open) >= MaxConns {
		return false
	}
	s.open[c] = struct{}{}
	return true
}

func (s *Session) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// Stop ends the session: no more handoffs, connections still open after
// grace are closed, and every decision made is returned (with how many
// were not recorded past MaxEvents).
func (s *Session) Stop(grace time.Duration) ([]Event, int) {
	s.conn.Close()
	<-s.done
	waited := make(chan struct{})
	go func() { s.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(grace):
		s.cancel()
		s.mu.Lock()
		for c := range s.open {
			c.Close()
		}
		s.mu.Unlock()
		<-waited
	}
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...), s.dropped
}

func receivedFDs(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if f, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// Send hands one accepted connection over (netrule.Send).
func Send(sock *os.File, h Handoff, fd int) error { return netrule.Send(sock, h, fd) }

// errHandoff is a handoff socket that is not a unix socket.
var errHandoff = errors.New("invalid handoff header")
