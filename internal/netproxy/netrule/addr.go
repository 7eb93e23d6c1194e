package netrule

import "net/netip"

// special is one address range the proxy never dials unless a rule names
// that address or a range inside this one explicitly.
type special struct {
	prefix netip.Prefix
	reason string
}

// specialRanges are the ranges that reach the host itself, the local
// network, a cloud's metadata service, or nothing routable. A name that
// resolves into one of them is refused as private-address: the classic
// way to turn an allowed name into a way into the host's network.
var specialRanges = func() []special {
	var out []special
	add := func(reason string, cidrs ...string) {
		for _, c := range cidrs {
			out = append(out, special{netip.MustParsePrefix(c), reason})
		}
	}
	add("unspecified", "0.0.0.0/8", "::/128")
	add("loopback", "127.0.0.0/8", "::1/128")
	add("private (RFC 1918)", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")
	add("carrier-grade NAT", "100.64.0.0/10")
	add("link-local (cloud metadata)", "169.254.0.0/16", "fe80::/10")
	add("IETF protocol assignments", "192.0.0.0/24")
	add("the sandbox's own name addresses", "198.18.0.0/15")
	add("reserved", "240.0.0.0/4")
	add("broadcast", "255.255.255.255/32")
	add("multicast", "224.0.0.0/4", "ff00::/8")
	add("unique local (IPv6 private)", "fc00::/7")
	add("site-local (deprecated IPv6 private)", "fec0::/10")
	return out
}()

// embeddedV4 returns the IPv4 address an IPv6 transition address carries
// (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002:AABB:CCDD::),
// which is where such a packet really goes.
func embeddedV4(a netip.Addr) (netip.Addr, bool) {
	if a.Is4In6() {
		return a.Unmap(), true
	}
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case netip.MustParsePrefix("64:ff9b::/96").Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case netip.MustParsePrefix("2002::/16").Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// Private reports why a is never dialled by default ("" when it may be):
// the address itself, or the IPv4 address an IPv6 transition form embeds.
func Private(a netip.Addr) string {
	a = a.WithZone("")
	if v4, ok := embeddedV4(a); ok {
		if why := Private(v4); why != "" {
			return why + " (embedded in " + a.String() + ")"
		}
		return ""
	}
	for _, s := range specialRanges {
		if s.prefix.Contains(a) {
			return s.reason
		}
	}
	return ""
}
