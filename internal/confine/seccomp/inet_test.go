package seccomp

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
)

func sin(a string, port uint16) []byte {
	ap := netip.AddrPortFrom(netip.MustParseAddr(a), port)
	return encodeInet(afInet, ap)
}

func sin6(a string, port uint16, scope uint32) []byte {
	b := encodeInet(afInet6, netip.AddrPortFrom(netip.MustParseAddr(a), port))
	binary.NativeEndian.PutUint32(b[24:], scope)
	return b
}

// TestProxyOnly: only the proxy's own address and ports pass, and every
// allowed destination is rewritten to 127.0.0.1 in the caller's family.
func TestProxyOnly(t *testing.T) {
	rule := ProxyOnly(4000, 4001)
	unspec := []byte{0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	unixAddr := append([]byte{1, 0}, "/tmp/x\x00"...)
	cases := []struct {
		name  string
		raw   []byte
		want  []byte
		errno int
	}{
		{"v4 proxy http", sin("127.0.0.1", 4000), sin("127.0.0.1", 4000), 0},
		{"v4 proxy socks", sin("127.0.0.1", 4001), sin("127.0.0.1", 4001), 0},
		{"v4 other port", sin("127.0.0.1", 4002), nil, errEACCES},
		{"v4 port 0", sin("127.0.0.1", 0), nil, errEACCES},
		{"v4 other loopback", sin("127.0.0.2", 4000), nil, errEACCES},
		{"v4 public at proxy port", sin("198.51.100.10", 4000), nil, errEACCES},
		{"v4 any", sin("0.0.0.0", 4000), nil, errEACCES},
		{"v6 loopback rewritten", sin6("::1", 4000, 0), sin6("::ffff:127.0.0.1", 4000, 0), 0},
		{"v6 mapped", sin6("::ffff:127.0.0.1", 4001, 0), sin6("::ffff:127.0.0.1", 4001, 0), 0},
		{"v6 mapped other", sin6("::ffff:198.51.100.10", 4000, 0), nil, errEACCES},
		{"v6 scoped loopback", sin6("::1", 4000, 2), nil, errEACCES},
		{"v6 public", sin6("2001:db8::1", 4000, 0), nil, errEACCES},
		{"v6 unspecified", sin6("::", 4000, 0), nil, errEACCES},
		{"v4 short", sin("127.0.0.1", 4000)[:15], nil, errEINVAL},
		{"v6 short", sin6("::1", 4000, 0)[:23], nil, errEINVAL},
		{"v6 rfc2133 length", sin6("::1", 4000, 0)[:24], sin6("::ffff:127.0.0.1", 4000, 0), 0},
		{"unspec dissolves", unspec, unspec, 0},
		{"empty", nil, nil, 0},
		{"unix on an IP socket", unixAddr, nil, errEACCES},
	}
	for _, c := range cases {
		got, errno := inetDecision(rule, c.raw)
		if errno != c.errno || !bytes.Equal(got, c.want) {
			t.Errorf("%s: got %x errno %d, want %x errno %d", c.name, got, errno, c.want, c.errno)
		}
	}
}

// FuzzInetDecision: whatever the bytes, an allowed destination is exactly
// 127.0.0.1 (or its mapped form) at a proxy port, freshly encoded.
func FuzzInetDecision(f *testing.F) {
	f.Add(sin("127.0.0.1", 4000))
	f.Add(sin6("::1", 4001, 0))
	f.Add(sin6("::ffff:127.0.0.1", 4000, 7))
	f.Add([]byte{2, 0})
	rule := ProxyOnly(4000, 4001)
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, errno := inetDecision(rule, raw)
		if errno != 0 || len(raw) < 2 || binary.NativeEndian.Uint16(raw) == 0 {
			return
		}
		a, ok, short := parseInet(got)
		if !ok || short {
			t.Fatalf("allowed %x as %x, not an IP address", raw, got)
		}
		if a.ap.Addr().Unmap() != netip.MustParseAddr("127.0.0.1") || a.ap.Addr().Zone() != "" ||
			(a.ap.Port() != 4000 && a.ap.Port() != 4001) {
			t.Fatalf("allowed %x as %v", raw, a.ap)
		}
		if len(got) != sockaddrInLen && len(got) != sockaddrIn6Len {
			t.Fatalf("encoded %d bytes", len(got))
		}
	})
}

// TestGuardListenFilter: listen goes to the supervisor only when asked,
// and only with a listener (DenyUnixConnect).
func TestGuardListenFilter(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64"} {
		for _, opts := range []Options{{DenyUnixConnect: true}, {DenyUnixConnect: true, GuardListen: true}, {GuardListen: true}} {
			want := uint32(ActionAllow)
			if opts.GuardListen && opts.DenyUnixConnect {
				want = ActionNotify
			}
			if got := eval(t, goarch, tcase{sys: "listen", opts: opts}); got != want {
				t.Errorf("%s %+v: listen → %s, want %s", goarch, opts, actionName(got), actionName(want))
			}
		}
	}
}
