package mcp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGuardDecisions(t *testing.T) {
	g, err := newGuard([]string{"MCP.internal", "[2001:db8::1]", "10.0.0.5"}, []string{"https://App.example:8443/"})
	if err != nil {
		t.Fatal(err)
	}
	for host, ok := range map[string]bool{
		"127.0.0.1:80": true, "127.1.2.3": true, "localhost": true, "LOCALHOST:9": true, "[::1]:8080": true,
		"[::ffff:127.0.0.1]:1": true, "mcp.internal:443": true, "mcp.internal": true, "[2001:db8::1]:1": true,
		"10.0.0.5:8080": true,
		"":              false, "evil.example": false, "evil.localhost": false, "localhost.": false, "localhost.evil.example": false,
		"127.0.0.1.nip.io": false, "0.0.0.0": false, "[::]:1": false, "10.0.0.6:8080": false, "mcp.internal.evil": false,
		"2130706433": false, "0x7f000001": false,
	} {
		if g.hostOK(host) != ok {
			t.Errorf("hostOK(%q) = %v", host, !ok)
		}
	}
	for _, c := range []struct {
		origins []string
		host    string
		ok      bool
	}{
		{[]string{"http://127.0.0.1:8080"}, "127.0.0.1:8080", true},
		{[]string{"HTTP://LOCALHOST:8080"}, "localhost:8080", true},
		{[]string{"https://app.example:8443"}, "127.0.0.1:1", true},
		{[]string{"http://127.0.0.1:8081"}, "127.0.0.1:8080", false},
		{[]string{"https://127.0.0.1:8080"}, "127.0.0.1:8080", false},
		{[]string{"http://127.0.0.1:8080/x"}, "127.0.0.1:8080", false},
		{[]string{"http://user@127.0.0.1:8080"}, "127.0.0.1:8080", false},
		{[]string{"null"}, "127.0.0.1:8080", false},
		{[]string{""}, "127.0.0.1:8080", false},
		{[]string{"http://127.0.0.1:8080", "http://127.0.0.1:8080"}, "127.0.0.1:8080", false},
		{[]string{"file://"}, "127.0.0.1:8080", false},
		{[]string{"https://app.example"}, "127.0.0.1:8080", false},
	} {
		if g.originOK(c.origins, c.host) != c.ok {
			t.Errorf("originOK(%q, %q) = %v", c.origins, c.host, !c.ok)
		}
	}
}

// FuzzGuard: whatever Host and Origin a request carries, the guard lets it
// through only with a loopback or allowed Host, and with no Origin, the
// server's own, or an allowed one.
func FuzzGuard(f *testing.F) {
	f.Add("127.0.0.1:8080", "http://127.0.0.1:8080", true)
	f.Add("evil.example", "http://evil.example", true)
	f.Add("mcp.internal", "", false)
	f.Add("[::1]:1", "https://app.example:8443", true)
	g, err := newGuard([]string{"mcp.internal"}, []string{"https://app.example:8443"})
	if err != nil {
		f.Fatal(err)
	}
	h := g.wrap(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	f.Fuzz(func(t *testing.T, host, origin string, sendOrigin bool) {
		r := httptest.NewRequest(http.MethodPost, "http://x/", nil)
		r.Host = host
		if sendOrigin {
			r.Header["Origin"] = []string{origin}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusTeapot {
			return
		}
		// The name is the whole Host, or its host part when it has a port
		// (an unbracketed "::1" is a bare IPv6 address).
		name := strings.ToLower(host)
		if h, _, err := net.SplitHostPort(name); err == nil {
			name = h
		}
		name = strings.Trim(name, "[]")
		if !isLoopback(name) && name != "mcp.internal" {
			t.Fatalf("Host %q let through", host)
		}
		if sendOrigin {
			o := strings.ToLower(strings.TrimSuffix(origin, "/"))
			if o != "http://"+strings.ToLower(host) && o != "https://app.example:8443" {
				t.Fatalf("Origin %q with Host %q let through", origin, host)
			}
		}
	})
}
