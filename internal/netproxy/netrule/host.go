package netrule

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Limits on what a name may look like (RFC 1035), applied before anything
// is resolved or matched.
const (
	maxName  = 253
	maxLabel = 63
)

// Target is a destination as the proxy decides it: a lower-case name
// without a trailing dot, or an IP address (Name empty), and a port.
type Target struct {
	Name string     // "" when the target is an IP literal
	Addr netip.Addr // valid only for an IP literal
	Port uint16
}

// IsIP reports whether the target was given as an IP address.
func (t Target) IsIP() bool { return t.Name == "" }

// Host is the name, or the address in its canonical text form.
func (t Target) Host() string {
	if t.IsIP() {
		return t.Addr.String()
	}
	return t.Name
}

// String is host:port, with IPv6 bracketed.
func (t Target) String() string {
	if t.IsIP() {
		return netip.AddrPortFrom(t.Addr, t.Port).String()
	}
	return t.Name + ":" + strconv.Itoa(int(t.Port))
}

// ErrAuthority is wrapped by every refusal of ParseAuthority and ParseHost.
var ErrAuthority = errors.New("invalid destination")

func authorityErr(s, why string) error {
	return fmt.Errorf("%w %q: %s", ErrAuthority, clip(s), why)
}

// clip keeps an error message bounded whatever the input.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ParseAuthority parses host:port as a CONNECT request, a SOCKS5 domain
// request or an absolute URL names it. It is strict on purpose: every
// relaxation is a way to make the proxy and the client disagree about
// which host is meant. Refused: whitespace, control bytes, NUL, '@',
// userinfo, a missing or zero port, IPv6 without brackets, and every
// numeric form that is not a plain dotted quad (decimal 2130706433, octal
// 0177.0.0.1, hex 0x7f.1): resolvers disagree about those.
func ParseAuthority(s string) (Target, error) {
	if len(s) > maxName+8 {
		return Target{}, authorityErr(s, "too long")
	}
	var host, port string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || !strings.HasPrefix(s[end+1:], ":") {
			return Target{}, authorityErr(s, "want [IPv6]:port")
		}
		host, port = s[:end+1], s[end+2:]
	} else {
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return Target{}, authorityErr(s, "no port")
		}
		host, port = s[:i], s[i+1:]
		if strings.Contains(host, ":") {
			return Target{}, authorityErr(s, "an IPv6 address must be in brackets")
		}
	}
	p, err := parsePort(port)
	if err != nil {
		return Target{}, authorityErr(s, err.Error())
	}
	t, err := ParseHost(host)
	if err != nil {
		return Target{}, err
	}
	t.Port = p
	return t, nil
}

func parsePort(s string) (uint16, error) {
	if s == "" || len(s) > 5 || strings.Trim(s, "0123456789") != "" || s[0] == '0' {
		return 0, errors.New("want a port 1-65535")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, errors.New("want a port 1-65535")
	}
	return uint16(n), nil
}

// ParseHost parses a host without a port: a name, a dotted-quad IPv4
// address or a bracketed IPv6 address (brackets optional here, as in a
// Host header without a port or a SOCKS5 IPv6 request). IPv4-mapped IPv6
// addresses are unmapped, so ::ffff:127.0.0.1 is judged as 127.0.0.1.
func ParseHost(s string) (Target, error) {
	if s == "" {
		return Target{}, authorityErr(s, "empty host")
	}
	if strings.HasPrefix(s, "[") != strings.HasSuffix(s, "]") {
		return Target{}, authorityErr(s, "unbalanced brackets")
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		inner = strings.TrimSuffix(inner, "]")
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return Target{}, authorityErr(s, "not an IPv6 address")
		}
		return Target{Addr: a.Unmap()}, nil
	}
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return Target{}, authorityErr(s, "not an IPv6 address")
		}
		return Target{Addr: a.Unmap()}, nil
	}
	name := strings.TrimSuffix(strings.ToLower(s), ".")
	if looksNumeric(name) {
		a, err := netip.ParseAddr(name)
		if err != nil || !a.Is4() {
			return Target{}, authorityErr(s, "an IP address must be a plain dotted quad")
		}
		return Target{Addr: a}, nil
	}
	if why := nameProblem(name); why != "" {
		return Target{}, authorityErr(s, why)
	}
	return Target{Name: name}, nil
}

// looksNumeric: the last label is all digits or a 0x number. No top-level
// domain is numeric, and resolvers read such names as addresses in forms
// (decimal, octal, hex, fewer than four parts) the proxy must not guess at.
func looksNumeric(name string) bool {
	last := name[strings.LastIndexByte(name, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") {
		return true
	}
	return strings.Trim(last, "0123456789") == ""
}

// nameProblem says what is wrong with a lower-cased name, or "".
// Letters, digits, '-' and '_' (service labels such as _dmarc) in
// non-empty labels; a label may not start or end with '-'. Punycode
// (xn--) is ASCII and passes; raw non-ASCII does not (send punycode).
func nameProblem(name string) string {
	if name == "" || len(name) > maxName {
		return "a name must be 1-253 bytes"
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > maxLabel {
			return "empty or over-long label"
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return "a label may not start or end with '-'"
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				if c >= 0x80 {
					return "non-ASCII name (use its punycode xn-- form)"
				}
				return fmt.Sprintf("byte %q is not allowed in a name", c)
			}
		}
	}
	return ""
}
