package seccomp

import (
	"encoding/binary"
	"net/netip"
	"slices"
)

// The proxy-only IP rule (Rules.InetConnect, Options.GuardListen): for a
// sandbox that shares the host's network namespace (the landlock backend
// under the domains network), whose only way out is the policy proxy
// listening on the host's 127.0.0.1. Pure: parsed, decided and encoded
// here, performed by the supervisor (inet_linux.go).

const (
	afInet  = 2
	afInet6 = 10

	sockaddrInLen  = 16 // sizeof(struct sockaddr_in)
	sockaddrIn6Min = 24 // SIN6_LEN_RFC2133: the kernel's minimum for AF_INET6
	sockaddrIn6Len = 28 // sizeof(struct sockaddr_in6)

	errEACCES = 13
	errEINVAL = 22
)

// inetAddr is an IP destination as the kernel would read it from a raw
// sockaddr of a connect, sendto or sendmsg.
type inetAddr struct {
	family uint16
	ap     netip.AddrPort
}

// parseInet reads raw as the kernel reads an IP sockaddr: the family, the
// port (network order) and the address; an IPv6 scope id is kept as a
// zone so a link-local destination is never mistaken for another. ok is
// false for any other family; a short address gives errInval.
func parseInet(raw []byte) (a inetAddr, ok, short bool) {
	if len(raw) < 2 {
		return inetAddr{}, false, false
	}
	fam := binary.NativeEndian.Uint16(raw)
	switch fam {
	case afInet:
		if len(raw) < sockaddrInLen {
			return inetAddr{}, true, true
		}
		ip := netip.AddrFrom4([4]byte(raw[4:8]))
		return inetAddr{fam, netip.AddrPortFrom(ip, binary.BigEndian.Uint16(raw[2:4]))}, true, false
	case afInet6:
		if len(raw) < sockaddrIn6Min {
			return inetAddr{}, true, true
		}
		ip := netip.AddrFrom16([16]byte(raw[8:24]))
		if len(raw) >= sockaddrIn6Len {
			if scope := binary.NativeEndian.Uint32(raw[24:28]); scope != 0 {
				ip = ip.WithZone(itoa(scope))
			}
		}
		return inetAddr{fam, netip.AddrPortFrom(ip, binary.BigEndian.Uint16(raw[2:4]))}, true, false
	}
	return inetAddr{}, false, false
}

// encodeInet is the sockaddr the supervisor connects with: built here from
// the checked address, never the target's bytes. An IPv4 address for an
// AF_INET6 sockaddr is written v4-mapped (the socket's own family decides
// whether the kernel accepts it, as it would have for the target).
func encodeInet(family uint16, ap netip.AddrPort) []byte {
	if family == afInet && ap.Addr().Is4() {
		b := make([]byte, sockaddrInLen)
		binary.NativeEndian.PutUint16(b, afInet)
		binary.BigEndian.PutUint16(b[2:], ap.Port())
		a4 := ap.Addr().As4()
		copy(b[4:], a4[:])
		return b
	}
	b := make([]byte, sockaddrIn6Len)
	binary.NativeEndian.PutUint16(b, afInet6)
	binary.BigEndian.PutUint16(b[2:], ap.Port())
	a16 := ap.Addr().As16()
	copy(b[8:], a16[:])
	return b
}

// ProxyOnly returns Rules.InetConnect for a proxy listening on 127.0.0.1
// at ports: a destination is allowed only if it is 127.0.0.1, its
// IPv4-mapped form or ::1, at one of those ports, and it is then always
// reached as 127.0.0.1 (::1 is another address, where a host process could
// listen on the same port). Anything else — another loopback address,
// any other host, a zone, port 0 — is refused.
func ProxyOnly(ports ...uint16) func(netip.AddrPort) (netip.AddrPort, bool) {
	ports = slices.Clone(ports)
	proxy := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	return func(ap netip.AddrPort) (netip.AddrPort, bool) {
		a := ap.Addr()
		if a.Zone() != "" || ap.Port() == 0 || !slices.Contains(ports, ap.Port()) {
			return netip.AddrPort{}, false
		}
		if a.Unmap() != proxy && a != netip.IPv6Loopback() {
			return netip.AddrPort{}, false
		}
		return netip.AddrPortFrom(proxy, ap.Port()), true
	}
}

// inetDecision is what the supervisor does with a raw IP destination under
// InetConnect: the address to use instead (nil when raw is not an IP
// address at all: AF_UNSPEC dissolves an association and reaches nothing),
// or the errno to fail with.
func inetDecision(rule func(netip.AddrPort) (netip.AddrPort, bool), raw []byte) ([]byte, int) {
	if len(raw) < 2 {
		return raw, 0 // no address: the kernel answers as it would
	}
	a, ok, short := parseInet(raw)
	switch {
	case short:
		return nil, errEINVAL
	case !ok && binary.NativeEndian.Uint16(raw) == 0: // AF_UNSPEC
		return raw, 0
	case !ok:
		return nil, errEACCES // an IP socket asked for another family
	}
	to, allowed := rule(a.ap)
	if !allowed {
		return nil, errEACCES
	}
	return encodeInet(a.family, to), 0
}

func itoa(v uint32) string {
	if v == 0 {
		return "0"
	}
	var b [10]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}
