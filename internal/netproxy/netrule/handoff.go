package netrule

import (
	"errors"
	"net/netip"
)

// Kind of connection the sandbox's init hands over: which in-namespace
// listener accepted it.
type Kind byte

// Handoff kinds.
const (
	KindHTTP     Kind = 1 // the explicit HTTP proxy (127.0.0.1:3128)
	KindSOCKS5   Kind = 2 // the SOCKS5 proxy (127.0.0.1:1080)
	KindCaptured Kind = 3 // a direct connect caught by a capture listener
)

// Handoff is the header that travels with each accepted socket from the
// init to the supervisor (one SEQPACKET message, the descriptor as
// SCM_RIGHTS). For a captured connection Host is the name the DNS stub
// gave the address to, or the address itself, and Port the port the
// command connected to.
type Handoff struct {
	Kind Kind
	Host string
	Port uint16
}

const handoffVersion = 1

// MaxHandoff is the largest header: version, kind, port, a 253-byte name.
const MaxHandoff = 4 + maxName

// Encode is the wire form: version, kind, port (big endian), host.
func (h Handoff) Encode() []byte {
	b := make([]byte, 0, 4+len(h.Host))
	b = append(b, handoffVersion, byte(h.Kind), byte(h.Port>>8), byte(h.Port))
	return append(b, h.Host...)
}

var errHandoff = errors.New("invalid handoff header")

// DecodeHandoff reads a header. The init is trusted (it runs before the
// command and the command cannot reach it), but the supervisor still
// refuses anything malformed: a captured target must parse as ParseHost
// does, and the explicit listeners carry no target.
func DecodeHandoff(b []byte) (Handoff, error) {
	if len(b) < 4 || len(b) > MaxHandoff || b[0] != handoffVersion {
		return Handoff{}, errHandoff
	}
	h := Handoff{Kind: Kind(b[1]), Port: uint16(b[2])<<8 | uint16(b[3]), Host: string(b[4:])}
	switch h.Kind {
	case KindHTTP, KindSOCKS5:
		if h.Port != 0 || h.Host != "" {
			return Handoff{}, errHandoff
		}
	case KindCaptured:
		if h.Port == 0 {
			return Handoff{}, errHandoff
		}
		if _, err := ParseHost(h.Host); err != nil {
			return Handoff{}, errHandoff
		}
	default:
		return Handoff{}, errHandoff
	}
	return h, nil
}

// Target is the captured destination.
func (h Handoff) Target() (Target, error) {
	t, err := ParseHost(h.Host)
	t.Port = h.Port
	return t, err
}

// CapturedHost is what the init sends for a captured connection to addr:
// the name the stub gave a fake address, else the address itself (an
// address in the fake range the stub never gave out stays an address, and
// the proxy refuses it as private).
func CapturedHost(addr netip.Addr, t *FakeTable) string {
	addr = addr.Unmap()
	if FakeRange.Contains(addr) && t != nil {
		if name, ok := t.Name(addr); ok {
			return name
		}
	}
	return addr.String()
}
