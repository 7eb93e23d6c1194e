package netrule

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestHandoffRoundTrip(t *testing.T) {
	for _, h := range []Handoff{
		{Kind: KindHTTP}, {Kind: KindSOCKS5},
		{Kind: KindCaptured, Host: "pypi.org", Port: 443},
		{Kind: KindCaptured, Host: "2001:db8::1", Port: 80},
	} {
		got, err := DecodeHandoff(h.Encode())
		if err != nil || got != h {
			t.Fatalf("%+v: %+v %v", h, got, err)
		}
	}
	for _, b := range [][]byte{
		nil, {1, 1, 0}, {2, 1, 0, 0}, {1, 9, 0, 0}, {1, 1, 0, 80}, append([]byte{1, 2, 0, 0}, "x"...),
		{1, 3, 0, 0, 'a'}, append([]byte{1, 3, 0, 80}, "a\r\nb"...), append([]byte{1, 3, 0, 80}, strings.Repeat("a", 300)...),
		append([]byte{1, 3, 0, 80}, "0177.0.0.1"...),
	} {
		if _, err := DecodeHandoff(b); err == nil {
			t.Errorf("accepted % x", b)
		}
	}
}

func FuzzDecodeHandoff(f *testing.F) {
	f.Add(Handoff{Kind: KindCaptured, Host: "a.org", Port: 443}.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHandoff(b)
		if err != nil {
			return
		}
		if h.Kind == KindCaptured {
			if _, err := h.Target(); err != nil {
				t.Fatalf("accepted an unparsable target %q", h.Host)
			}
		}
	})
}

func TestCapturedHost(t *testing.T) {
	tab := NewFakeTable()
	a, _ := tab.Addr("pypi.org")
	if got := CapturedHost(a, tab); got != "pypi.org" {
		t.Fatal(got)
	}
	if got := CapturedHost(netip.MustParseAddr("198.18.9.9"), tab); got != "198.18.9.9" {
		t.Fatal(got)
	}
	if got := CapturedHost(netip.MustParseAddr("::ffff:127.0.0.1"), tab); got != "127.0.0.1" {
		t.Fatal(got)
	}
}

func TestWithProxyEnv(t *testing.T) {
	env := WithProxyEnv([]string{"PATH=/bin", "https_proxy=http://evil:1", "GOPROXY=https://proxy.golang.org"})
	if !slices.Contains(env, "https_proxy=http://127.0.0.1:3128") || slices.Contains(env, "https_proxy=http://evil:1") ||
		!slices.Contains(env, "GOPROXY=https://proxy.golang.org") || !slices.Contains(env, "PATH=/bin") {
		t.Fatalf("%v", env)
	}
}
