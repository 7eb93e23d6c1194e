package netproxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// bannerServer speaks first ("SSH-2.0-test"), then echoes.
func bannerServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.WriteString(c, "SSH-2.0-test\r\n")
				io.Copy(c, c)
			}()
		}
	}()
	return l.Addr().String()
}

func TestServerFirstProtocol(t *testing.T) {
	old := ServerFirstWait
	ServerFirstWait = 100 * time.Millisecond
	defer func() { ServerFirstWait = old }()
	h := newHarness(t, []string{"pkg.test"}, nil)
	h.net.servers["198.51.100.10:22"] = bannerServer(t)
	addr := h.listen(t, func(ctx context.Context, c net.Conn) {
		h.proxy.ServeCaptured(ctx, c, Target{Name: "pkg.test", Port: 22})
	})
	for _, tc := range []struct {
		name  string
		reply []string // written one after another, after the banner
		echo  bool
	}{
		{"ssh client", []string{"SSH-2.0-client\r\n"}, true},
		{"smtp-like word", []string{"EHLO x\r\n"}, true},
		{"http after silence", []string{"GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n"}, false},
		{"http a byte at a time", []string{"G", "ET / HTTP/1.1\r\nHost: evil.test\r\n\r\n"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			banner, err := br.ReadString('\n')
			if err != nil || banner != "SSH-2.0-test\r\n" {
				t.Fatalf("banner %q %v", banner, err)
			}
			for _, w := range tc.reply {
				io.WriteString(c, w)
				time.Sleep(20 * time.Millisecond)
			}
			got, _ := br.ReadString('\n')
			if tc.echo != (got == tc.reply[0]) {
				t.Fatalf("echo %q (want echo: %v)", got, tc.echo)
			}
			c.Close()
			ev := h.event(t)
			if !tc.echo && (ev.Verdict != Deny || ev.Reason != ReasonHostMatch) {
				t.Fatalf("event %+v", ev)
			}
			if tc.echo && ev.Verdict != Allow {
				t.Fatalf("event %+v", ev)
			}
		})
	}
}
