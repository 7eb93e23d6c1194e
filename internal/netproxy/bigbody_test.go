package netproxy

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A large body of known length takes the socket-to-socket path; it must
// arrive whole, byte for byte, and be counted.
func TestLargeBodyRelayedWhole(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Keep", "yes")
		w.Write(body)
	}))
	defer big.Close()
	h := newHarness(t, []string{"pkg.test"}, nil)
	h.net.servers["198.51.100.10:80"] = big.Listener.Addr().String()
	c := h.client(t, h.listen(t, h.proxy.ServeHTTP))
	for range 2 { // the second request reuses the proxied connection
		resp, err := c.Get("http://pkg.test/big")
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || sha256.Sum256(got) != sha256.Sum256(body) || resp.Header.Get("X-Keep") != "yes" {
			t.Fatalf("body %d bytes, err %v, header %v", len(got), err, resp.Header)
		}
	}
	c.CloseIdleConnections()
	ev := h.event(t)
	if ev.Down < int64(2*len(body)) {
		t.Fatalf("counted %d bytes down", ev.Down)
	}
}
