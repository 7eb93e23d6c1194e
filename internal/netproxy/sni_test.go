package netproxy

import (
	"bytes"
	"crypto/tls"
	"net"
	"testing"
	"time"
)

// clientHello captures the first flight of a real crypto/tls client.
func clientHello(t testing.TB, serverName string) []byte {
	t.Helper()
	c, s := net.Pipe()
	go func() {
		cl := tls.Client(c, &tls.Config{ServerName: serverName, InsecureSkipVerify: serverName == ""})
		cl.SetDeadline(time.Now().Add(2 * time.Second))
		cl.Handshake()
		c.Close()
	}()
	s.SetDeadline(time.Now().Add(2 * time.Second))
	raw, _, err := ReadClientHello(s)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestReadClientHello(t *testing.T) {
	raw := clientHello(t, "registry.npmjs.org")
	got, sni, err := ReadClientHello(bytes.NewReader(raw))
	if err != nil || sni != "registry.npmjs.org" || !bytes.Equal(got, raw) {
		t.Fatalf("sni %q err %v; want registry.npmjs.org and the bytes unchanged", sni, err)
	}
	_, sni, err = ReadClientHello(bytes.NewReader(clientHello(t, "")))
	if err != nil || sni != "" {
		t.Errorf("hello without SNI: %q, %v", sni, err)
	}
	for name, in := range map[string][]byte{
		"plain HTTP":  []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"truncated":   raw[:len(raw)-10],
		"zero length": {0x16, 3, 1, 0, 0},
	} {
		if _, sni, err := ReadClientHello(bytes.NewReader(in)); err == nil {
			t.Errorf("%s: accepted with SNI %q", name, sni)
		}
	}
}

func FuzzReadClientHello(f *testing.F) {
	f.Add(clientHello(f, "example.com"))
	f.Add([]byte{0x16, 3, 1, 0, 4, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		raw, sni, err := ReadClientHello(bytes.NewReader(b))
		if err == nil && !bytes.HasPrefix(b, raw) {
			t.Fatalf("returned bytes that were not read")
		}
		_ = sni
	})
}
