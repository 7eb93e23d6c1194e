package netproxy

import (
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// handoffPair is a socket pair as the backend makes one: the supervisor's
// end served by a Session, the init's end returned.
func handoffPair(t *testing.T, p *Proxy) (*Session, *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Serve(p, os.NewFile(uintptr(fds[0]), "supervisor"))
	if err != nil {
		t.Fatal(err)
	}
	init := os.NewFile(uintptr(fds[1]), "init")
	t.Cleanup(func() { init.Close() })
	return s, init
}

// handOver accepts one loopback connection (as an in-namespace listener
// would) and sends it over with h; it returns the client's end.
func handOver(t *testing.T, init *os.File, h Handoff) net.Conn {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	f, err := srv.(*net.TCPConn).File()
	srv.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := Send(init, h, int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	return client
}

func TestSessionServesHandoffs(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	s, init := handoffPair(t, h.proxy)

	// The explicit HTTP proxy: an absolute-form request.
	c := handOver(t, init, Handoff{Kind: KindHTTP})
	io.WriteString(c, "GET http://pkg.test/x HTTP/1.1\r\nHost: pkg.test\r\nConnection: close\r\n\r\n")
	body, _ := io.ReadAll(c)
	c.Close()
	if !strings.Contains(string(body), "plain pkg.test") {
		t.Fatalf("http: %q", body)
	}
	// A captured connection to a name the rules refuse: a reset, reported.
	c = handOver(t, init, Handoff{Kind: KindCaptured, Host: "evil.test", Port: 80})
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Fatal("refused capture got data")
	}
	c.Close()
	// A malformed header is dropped with its descriptor.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l.Close()
	cl, _ := net.Dial("tcp", l.Addr().String())
	srv, _ := l.Accept()
	f, _ := srv.(*net.TCPConn).File()
	srv.Close()
	syscall.Sendmsg(int(init.Fd()), []byte{1, 3, 0, 0}, syscall.UnixRights(int(f.Fd())), nil, 0)
	f.Close()
	cl.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := cl.Read(make([]byte, 1)); err == nil {
		t.Fatal("malformed handoff was served")
	}
	cl.Close()

	init.Close() // the init exits
	evs, dropped := s.Stop(2 * time.Second)
	if len(evs) != 2 || dropped != 0 {
		t.Fatalf("events %+v", evs)
	}
	if evs[0].Verdict != Allow || evs[0].Host != "pkg.test" || evs[1].Verdict != Deny || evs[1].Via != "captured" || evs[1].Reason != ReasonAllowlist {
		t.Fatalf("events %+v", evs)
	}
}

func TestSessionStopClosesHeldConnections(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	s, init := handoffPair(t, h.proxy)
	c := handOver(t, init, Handoff{Kind: KindSOCKS5}) // never speaks: held by the 30 s handshake deadline
	defer c.Close()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	s.Stop(200 * time.Millisecond)
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Stop took %v", d)
	}
}
