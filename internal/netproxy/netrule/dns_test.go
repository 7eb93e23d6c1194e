package netrule

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// query builds a DNS query for name and qtype.
func query(name string, qtype uint16) []byte {
	q := []byte{0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	for _, l := range strings.Split(name, ".") {
		q = append(q, byte(len(l)))
		q = append(q, l...)
	}
	q = append(q, 0, byte(qtype>>8), byte(qtype), 0, 1)
	return q
}

func rcode(r []byte) byte { return r[3] & 0x0f }

func TestAnswerDNS(t *testing.T) {
	tab := NewFakeTable()
	r := AnswerDNS(query("pypi.org", dnsTypeA), tab)
	if rcode(r) != rcodeOK || binary.BigEndian.Uint16(r[6:8]) != 1 || r[0] != 0x12 || r[1] != 0x34 {
		t.Fatalf("A: % x", r)
	}
	got := netip.AddrFrom4([4]byte(r[len(r)-4:]))
	want, _ := tab.Addr("pypi.org")
	if got != want || !FakeRange.Contains(got) {
		t.Fatalf("A answer %v, table %v", got, want)
	}
	if ttl := binary.BigEndian.Uint32(r[len(r)-10 : len(r)-6]); ttl != 1 {
		t.Fatalf("TTL %d", ttl)
	}
	// Stable: the same name, asked again or in capitals, gets the same address.
	r2 := AnswerDNS(query("PyPI.org", dnsTypeA), tab)
	if netip.AddrFrom4([4]byte(r2[len(r2)-4:])) != got {
		t.Fatal("address not stable")
	}
	if n, ok := tab.Name(got); !ok || n != "pypi.org" {
		t.Fatalf("reverse: %q %v", n, ok)
	}
	for _, tc := range []struct {
		name string
		q    []byte
		code byte
	}{
		{"AAAA has no records", query("pypi.org", dnsTypeAAAA), rcodeOK},
		{"TXT refused (no tunnel)", query("c2VjcmV0.evil.example", 16), rcodeRefused},
		{"MX refused", query("pypi.org", 15), rcodeRefused},
		{"ANY refused", query("pypi.org", 255), rcodeRefused},
		{"PTR refused", query("1.0.0.127.in-addr.arpa", 12), rcodeRefused},
		{"numeric name refused", query("127.0.0.1", dnsTypeA), rcodeRefused},
		{"bad byte refused", query("a b.org", dnsTypeA), rcodeRefused},
		{"dot inside a label", append(append([]byte{0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 3}, "a.b"...), 0, 0, 1, 0, 1), rcodeFormErr},
		{"two questions", func() []byte { q := query("a.org", 1); q[5] = 2; return q }(), rcodeFormErr},
		{"notify opcode", func() []byte { q := query("a.org", 1); q[2] = 4 << 3; return q }(), rcodeNotImp},
		{"class CH", func() []byte { q := query("a.org", 1); q[len(q)-1] = 3; return q }(), rcodeRefused},
		{"truncated", query("a.org", 1)[:15], rcodeFormErr},
	} {
		r := AnswerDNS(tc.q, tab)
		if r == nil || rcode(r) != tc.code || binary.BigEndian.Uint16(r[6:8]) != 0 {
			t.Errorf("%s: % x", tc.name, r)
		}
	}
	if AnswerDNS([]byte{1, 2, 3}, tab) != nil {
		t.Error("short input answered")
	}
	resp := AnswerDNS(query("a.org", 1), tab)
	if AnswerDNS(resp, tab) != nil {
		t.Error("a response was answered")
	}
}

// A real resolver (Go's own DNS client) through the stub.
func TestAnswerDNSRealClient(t *testing.T) {
	tab := NewFakeTable()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if r := AnswerDNS(buf[:n], tab); r != nil {
				pc.WriteTo(r, from)
			}
		}
	}()
	res := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	addrs, err := res.LookupNetIP(context.Background(), "ip", "registry.npmjs.org")
	if err != nil || len(addrs) != 1 || !FakeRange.Contains(addrs[0]) {
		t.Fatalf("lookup: %v %v", addrs, err)
	}
	if _, err := res.LookupTXT(context.Background(), "exfil.evil.example"); err == nil {
		t.Fatal("TXT answered")
	}
}

func TestFakeTableFull(t *testing.T) {
	tab := NewFakeTable()
	seen := map[netip.Addr]bool{}
	for i := range MaxFakeNames {
		a, ok := tab.Addr("n" + strings.Repeat("x", i%7) + "." + itoa(i) + ".test")
		if !ok || seen[a] || !FakeRange.Contains(a) {
			t.Fatalf("name %d: %v %v", i, a, ok)
		}
		seen[a] = true
	}
	if _, ok := tab.Addr("one-more.test"); ok {
		t.Fatal("table grew past its bound")
	}
}

func itoa(i int) string {
	return netip.AddrFrom4([4]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}).String()
}

func FuzzAnswerDNS(f *testing.F) {
	f.Add(query("pypi.org", 1))
	f.Add(query("a.b.c", 28))
	f.Add(query("x", 16))
	f.Fuzz(func(t *testing.T, q []byte) {
		tab := NewFakeTable()
		r := AnswerDNS(q, tab)
		if r == nil {
			return
		}
		if r[2]&0x80 == 0 {
			t.Fatal("reply without QR")
		}
		if an := binary.BigEndian.Uint16(r[6:8]); an > 1 {
			t.Fatal("more than one answer")
		}
		if binary.BigEndian.Uint16(r[6:8]) == 1 {
			a := netip.AddrFrom4([4]byte(r[len(r)-4:]))
			if _, ok := tab.Name(a); !ok || !FakeRange.Contains(a) {
				t.Fatalf("answered %v outside the table", a)
			}
		}
	})
}
