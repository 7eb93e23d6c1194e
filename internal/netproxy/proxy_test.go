package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// testNet is a test internet on loopback: names resolve to addresses in
// 198.51.100.0/24 (public, as far as the proxy knows), and dialling one of
// those reaches the loopback server registered for it.
type testNet struct {
	mu      sync.Mutex
	names   map[string][]string // name → answers, consumed one per lookup when several
	servers map[string]string   // "198.51.100.x:port" → loopback address
	dialled []string
}

func (n *testNet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	answers := n.names[host]
	if len(answers) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	a := answers[0]
	if len(answers) > 1 {
		n.names[host] = answers[1:] // the next lookup gets the next answer
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func (n *testNet) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	n.dialled = append(n.dialled, addr)
	real, ok := n.servers[addr]
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("test network: nothing at %s", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, real)
}

// harness is a proxy over a test network with an HTTP server, a TLS
// server and the events it reported.
type harness struct {
	net    *testNet
	proxy  *Proxy
	events chan Event
	http   *httptest.Server
	tls    *httptest.Server
}

func newHarness(t *testing.T, allow, deny []string) *harness {
	t.Helper()
	h := &harness{events: make(chan Event, 16)}
	h.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "plain %s", r.Host)
	}))
	h.tls = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "secure %s", r.Host)
	}))
	t.Cleanup(h.http.Close)
	t.Cleanup(h.tls.Close)
	h.net = &testNet{
		names: map[string][]string{
			"pkg.test": {"198.51.100.10"}, "other.test": {"198.51.100.11"},
			"evil.test": {"198.51.100.12"}, "meta.test": {"169.254.169.254"},
			"lo.test": {"127.0.0.1"}, "rebind.test": {"198.51.100.10", "127.0.0.1"},
		},
		servers: map[string]string{
			"198.51.100.10:80": h.http.Listener.Addr().String(), "198.51.100.10:443": h.tls.Listener.Addr().String(),
			"198.51.100.11:80": h.http.Listener.Addr().String(), "198.51.100.11:443": h.tls.Listener.Addr().String(),
			"198.51.100.12:443": h.tls.Listener.Addr().String(),
		},
	}
	rules := mustRules(t, allow, deny)
	h.proxy = &Proxy{Rules: rules, Resolver: h.net, Dial: h.net.Dial, Report: func(e Event) { h.events <- e }}
	return h
}

// listen serves the proxy on loopback (as the sandbox's in-namespace
// listener would hand connections over) and returns its address.
func (h *harness) listen(t *testing.T, serve func(context.Context, net.Conn)) string {
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
			go serve(context.Background(), c)
		}
	}()
	return l.Addr().String()
}

func (h *harness) event(t *testing.T) Event {
	t.Helper()
	select {
	case e := <-h.events:
		return e
	case <-time.After(5 * time.Second):
		t.Fatal("no event reported")
	}
	return Event{}
}

func (h *harness) client(t *testing.T, proxyAddr string) *http.Client {
	u, _ := url.Parse("http://" + proxyAddr)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		Proxy: http.ProxyURL(u), TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
}

func TestHTTPProxyAllowsAndDenies(t *testing.T) {
	h := newHarness(t, []string{"pkg.test", "meta.test", "lo.test", "rebind.test"}, []string{"evil.test"})
	c := h.client(t, h.listen(t, h.proxy.ServeHTTP))
	resp, err := c.Get("https://pkg.test/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "secure pkg.test" {
		t.Fatalf("allowed https through CONNECT: %q", body)
	}
	c.CloseIdleConnections() // the event is reported when the tunnel ends
	if e := h.event(t); e.Verdict != Allow || e.Via != "connect" || e.Rule != "pkg.test" || e.Down == 0 {
		t.Errorf("event %+v", e)
	}
	for target, reason := range map[string]string{
		"https://other.test/": ReasonAllowlist, "https://evil.test/": ReasonDenylist,
		"https://meta.test/": ReasonPrivate, "https://lo.test/": ReasonPrivate,
		"http://other.test/": ReasonAllowlist,
	} {
		resp, err := c.Get(target)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Proxy-Error") != reason {
				t.Errorf("%s: status %d, X-Proxy-Error %q; want 403 %s", target, resp.StatusCode, resp.Header.Get("X-Proxy-Error"), reason)
			}
		} else if !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: %v; want a 403", target, err)
		}
		if e := h.event(t); e.Verdict != Deny || e.Reason != reason {
			t.Errorf("%s: event %+v; want deny %s", target, e, reason)
		}
	}
}

// A name that answers public first and private on a second lookup: the
// proxy looks it up once and dials the address it checked.
func TestNoRebinding(t *testing.T) {
	h := newHarness(t, []string{"rebind.test"}, nil)
	c := h.client(t, h.listen(t, h.proxy.ServeHTTP))
	resp, err := c.Get("http://rebind.test/")
	if err == nil {
		resp.Body.Close()
	}
	h.event(t)
	for _, d := range h.net.dialled {
		if !strings.HasPrefix(d, "198.51.100.10:") {
			t.Errorf("dialled %s: not the address that was checked", d)
		}
	}
	if len(h.net.dialled) != 1 {
		t.Errorf("dialled %v; want exactly the checked address once", h.net.dialled)
	}
}

// rawProxy sends raw bytes to the proxy and returns the first response line.
func rawProxy(t *testing.T, addr, request string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, request)
	line, _ := bufio.NewReader(c).ReadString('\n')
	return line
}

func TestConnectAttacks(t *testing.T) {
	h := newHarness(t, []string{"pkg.test", "*.good.test"}, nil)
	addr := h.listen(t, h.proxy.ServeHTTP)
	for req, want := range map[string]string{
		"CONNECT 2130706433:80 HTTP/1.1\r\n\r\n":                        "400",
		"CONNECT 0177.0.0.1:80 HTTP/1.1\r\n\r\n":                        "400",
		"CONNECT [::ffff:127.0.0.1]:80 HTTP/1.1\r\n\r\n":                "403",
		"CONNECT [::1]:80 HTTP/1.1\r\n\r\n":                             "403",
		"CONNECT pkg.test%00.evil:443 HTTP/1.1\r\n\r\n":                 "400",
		"CONNECT good.test:443 HTTP/1.1\r\n\r\n":                        "403", // *.x is not x
		"CONNECT evilgood.test:443 HTTP/1.1\r\n\r\n":                    "403",
		"CONNECT pkg.test:443:443 HTTP/1.1\r\n\r\n":                     "400",
		"CONNECT " + strings.Repeat("a", 300) + ":443 HTTP/1.1\r\n\r\n": "400",
		"GET http://pkg.test/ HTTP/1.1\r\nHost: other.test\r\n\r\n":     "400",
	} {
		if line := rawProxy(t, addr, req); !strings.Contains(line, " "+want+" ") {
			t.Errorf("%q → %q; want %s", req, line, want)
		}
	}
}

// CONNECT to an allowed name, then a TLS hello for another host: closed.
func TestSNIMismatch(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	addr := h.listen(t, h.proxy.ServeHTTP)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "CONNECT pkg.test:443 HTTP/1.1\r\nHost: pkg.test:443\r\n\r\n")
	br := bufio.NewReader(c)
	if line, _ := br.ReadString('\n'); !strings.Contains(line, "200") {
		t.Fatalf("CONNECT: %q", line)
	}
	br.ReadString('\n')
	tc := tls.Client(c, &tls.Config{ServerName: "evil.test", InsecureSkipVerify: true})
	if err := tc.Handshake(); err == nil {
		t.Fatal("a TLS handshake naming another host went through")
	}
	if e := h.event(t); e.Verdict != Deny || e.Reason != ReasonSNIMismatch {
		t.Errorf("event %+v; want sni-mismatch", e)
	}
}

// Plain HTTP inside an allowed CONNECT with the Host of another site.
func TestHostHeaderInTunnel(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	addr := h.listen(t, h.proxy.ServeHTTP)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "CONNECT pkg.test:80 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	br.ReadString('\n')
	br.ReadString('\n')
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: pkg.test\r\n\r\n")
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "plain pkg.test" {
		t.Fatalf("first request: %q", body)
	}
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: other.test\r\n\r\n")
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Proxy-Error") != ReasonHostMatch {
		t.Fatalf("second request for another Host: %v %v", resp, err)
	}
}

func TestSOCKS5(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	addr := h.listen(t, h.proxy.ServeSOCKS5)
	socks := func(name string, port uint16) byte {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte{5, 1, 0})
		var r [2]byte
		io.ReadFull(c, r[:])
		req := append([]byte{5, 1, 0, 3, byte(len(name))}, name...)
		req = append(req, byte(port>>8), byte(port))
		c.Write(req)
		var rep [10]byte
		if _, err := io.ReadFull(c, rep[:]); err != nil {
			t.Fatal(err)
		}
		if rep[1] == socksOK {
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", name)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		return rep[1]
	}
	if got := socks("pkg.test", 80); got != socksOK {
		t.Errorf("allowed name: reply %d", got)
	}
	if got := socks("other.test", 80); got != socksNotAllowed {
		t.Errorf("unlisted name: reply %d, want %d", got, socksNotAllowed)
	}
	if got := socks("bad name", 80); got != socksNotAllowed {
		t.Errorf("bad name: reply %d", got)
	}
}

func TestAsk(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	h.proxy.Rules.AskUnlisted = true
	var mu sync.Mutex
	var asked []string
	h.proxy.Ask = func(_ context.Context, tg Target) (Verdict, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, tg.String())
		if tg.Name == "other.test" {
			return Allow, nil
		}
		return Deny, nil
	}
	c := h.client(t, h.listen(t, h.proxy.ServeHTTP))
	resp, err := c.Get("https://other.test/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("approved host: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c.CloseIdleConnections()
	h.event(t)
	resp, err = c.Get("https://evil.test/")
	if err == nil {
		resp.Body.Close()
	}
	if e := h.event(t); e.Reason != ReasonDeclined {
		t.Errorf("declined host: %+v", e)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Errorf("asked %v", asked)
	}
}
