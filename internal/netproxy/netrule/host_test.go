package netrule

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAuthority(t *testing.T) {
	ok := map[string]string{
		"example.com:443":        "example.com:443",
		"Example.COM.:443":       "example.com:443",
		"_dmarc.example.com:53":  "_dmarc.example.com:53",
		"xn--bcher-kva.de:443":   "xn--bcher-kva.de:443",
		"198.51.100.7:80":        "198.51.100.7:80",
		"[2001:db8::1]:443":      "[2001:db8::1]:443",
		"[::ffff:127.0.0.1]:443": "127.0.0.1:443", // unmapped: judged as 127.0.0.1
	}
	for in, want := range ok {
		got, err := ParseAuthority(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseAuthority(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	bad := []string{
		"", "example.com", "example.com:", "example.com:0", "example.com:65536", "example.com:080",
		"example.com:443 ", " example.com:443", "exa mple.com:443", "example.com\r\n:443",
		"example.com\x00.evil:443", "user@example.com:443", "2001:db8::1:443", "[2001:db8::1:443",
		"[fe80::1%eth0]:443", "2130706433:80", "0177.0.0.1:80", "0x7f.0.0.1:80", "127.1:80",
		"0x7f000001:80", "-bad.com:443", "bad-.com:443", "a..b:443", "bücher.de:443",
		strings.Repeat("a", 64) + ".com:443", strings.Repeat("a.", 130) + "com:443",
		"*.example.com:443", "example.com:443:443", "[]:443", "[example.com]:443",
	}
	for _, in := range bad {
		if got, err := ParseAuthority(in); err == nil || !errors.Is(err, ErrAuthority) {
			t.Errorf("ParseAuthority(%q) = %v, %v; want an ErrAuthority refusal", in, got, err)
		}
	}
}

func FuzzParseAuthority(f *testing.F) {
	for _, s := range []string{"example.com:443", "[::1]:80", "0177.0.0.1:80", "a.b.c:1", "x\x00:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseAuthority(s)
		if err != nil {
			return
		}
		// What is accepted is canonical: parsing its own form gives itself,
		// and it never carries bytes that could split a header or a line.
		again, err := ParseAuthority(got.String())
		if err != nil || again != got {
			t.Fatalf("%q → %v, which parses as %v, %v", s, got, again, err)
		}
		if strings.ContainsAny(got.String(), " \t\r\n\x00@/\\") {
			t.Fatalf("%q accepted with a separator byte: %q", s, got)
		}
		if got.Port == 0 {
			t.Fatalf("%q accepted without a port", s)
		}
	})
}
