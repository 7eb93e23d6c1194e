package netproxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLocalServesBothListeners: the loopback listeners hand their
// connections to the same session the linux backend's handoffs reach:
// an allowed absolute-form request goes through, a refused name gets the
// 403 with its X-Proxy-Error, a SOCKS5 request is decided too, and every
// decision comes back from Stop.
func TestLocalServesBothListeners(t *testing.T) {
	h := newHarness(t, []string{"pkg.test"}, nil)
	l, err := ListenLocal()
	if err != nil {
		t.Fatal(err)
	}
	hp, sp := l.Ports()
	if hp == 0 || sp == 0 || hp == sp {
		t.Fatalf("ports %d %d", hp, sp)
	}
	if err := l.Start(h.proxy); err != nil {
		t.Fatal(err)
	}
	get := func(host string) *http.Response {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(int(hp)))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET http://"+host+"/x HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		return resp
	}
	if r := get("pkg.test"); r.StatusCode != 200 {
		t.Fatalf("allowed: %s", r.Status)
	}
	if r := get("evil.test"); r.StatusCode != http.StatusForbidden || r.Header.Get("X-Proxy-Error") != ReasonAllowlist {
		t.Fatalf("refused: %s %q", r.Status, r.Header.Get("X-Proxy-Error"))
	}
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(int(sp)))
	if err != nil {
		t.Fatal(err)
	}
	// Greeting (no auth), then CONNECT evil.test:443 by name.
	io.WriteString(c, "\x05\x01\x00")
	io.WriteString(c, "\x05\x01\x00\x03\x09evil.test\x01\xbb")
	reply := make([]byte, 6) // the greeting's answer, then the request's
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := io.ReadAtLeast(c, reply, 4)
	c.Close()
	if n < 4 || reply[0] != 5 || reply[1] != 0 || reply[2] != 5 || reply[3] != socksNotAllowed {
		t.Fatalf("socks reply %x", reply[:n])
	}
	evs, dropped := l.Stop(time.Second)
	if len(evs) != 3 || dropped != 0 {
		t.Fatalf("events %+v", evs)
	}
	var denied int
	for _, e := range evs {
		if e.Verdict == Deny && e.Host == "evil.test" {
			denied++
		}
	}
	if denied != 2 {
		t.Fatalf("events %+v", evs)
	}
	// Stopped: nothing listens any more.
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(int(hp))); err == nil {
		c.Close()
		t.Fatal("listener still open after Stop")
	}
}

// TestProxyEnvAt: the variables name the given ports, and ProxyEnv is the
// in-namespace ports' case of the same code.
func TestProxyEnvAt(t *testing.T) {
	env := strings.Join(ProxyEnvAt(40000, 40001), "\n")
	for _, want := range []string{"HTTP_PROXY=http://127.0.0.1:40000", "https_proxy=http://127.0.0.1:40000",
		"ALL_PROXY=socks5h://127.0.0.1:40001", "NO_PROXY=localhost,127.0.0.1,::1", "npm_config_https_proxy=http://127.0.0.1:40000"} {
		if !strings.Contains(env, want+"\n") && !strings.HasSuffix(env, want) {
			t.Errorf("missing %s in\n%s", want, env)
		}
	}
	if strings.Join(ProxyEnv(), "\n") != strings.Join(ProxyEnvAt(HTTPPort, SOCKSPort), "\n") {
		t.Error("ProxyEnv differs from ProxyEnvAt(HTTPPort, SOCKSPort)")
	}
	got := WithProxyEnvAt([]string{"PATH=/bin", "HTTPS_PROXY=http://evil:1"}, 40000, 40001)
	if strings.Contains(strings.Join(got, "\n"), "evil") || got[0] != "PATH=/bin" {
		t.Errorf("WithProxyEnvAt: %v", got)
	}
}
