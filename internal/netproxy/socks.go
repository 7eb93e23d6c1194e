package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"time"
)

// SOCKS5 reply codes (RFC 1928 6).
const (
	socksOK          = 0x00
	socksFailure     = 0x01
	socksNotAllowed  = 0x02
	socksUnreachable = 0x04
	socksCmdNotSup   = 0x07
	socksAddrNotSup  = 0x08
)

// ServeSOCKS5 serves one SOCKS5 client: no authentication, CONNECT only
// (BIND and UDP ASSOCIATE are refused: UDP leaves the sandbox only as DNS
// through the stub). It closes conn when done.
func (p *Proxy) ServeSOCKS5(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(conn)
	t, code, raw := socksHandshake(conn, br)
	if raw != "" {
		p.reportInvalid("socks5", raw, ReasonBadRequest, nil)
	}
	if code != socksOK {
		socksReply(conn, code)
		return
	}
	conn.SetReadDeadline(time.Time{})
	f, err := p.begin(ctx, "socks5", t)
	defer f.end()
	ev, up := &f.ev, f.up
	if err != nil {
		if _, ok := err.(*errDenied); ok {
			socksReply(conn, socksNotAllowed)
		} else {
			ev.Why = "upstream: " + err.Error()
			socksReply(conn, socksUnreachable)
		}
		return
	}
	defer up.Close()
	if socksReply(conn, socksOK) != nil {
		return
	}
	p.tunnel(ev, t, conn, br, up)
}

// socksHandshake reads the greeting and the request and returns the
// target, or a reply code for a refusal.
func socksHandshake(conn net.Conn, br *bufio.Reader) (Target, byte, string) {
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != 5 || hdr[1] == 0 {
		return Target{}, socksFailure, ""
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return Target{}, socksFailure, ""
	}
	noAuth := false
	for _, m := range methods {
		noAuth = noAuth || m == 0
	}
	if !noAuth {
		conn.Write([]byte{5, 0xff})
		return Target{}, socksFailure, ""
	}
	if _, err := conn.Write([]byte{5, 0}); err != nil {
		return Target{}, socksFailure, ""
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != 5 {
		return Target{}, socksFailure, ""
	}
	if req[1] != 1 {
		return Target{}, socksCmdNotSup, ""
	}
	t, code, raw := socksAddress(br, req[3])
	if code != socksOK {
		return Target{}, code, raw
	}
	var port [2]byte
	if _, err := io.ReadFull(br, port[:]); err != nil {
		return Target{}, socksFailure, ""
	}
	t.Port = binary.BigEndian.Uint16(port[:])
	if t.Port == 0 {
		return Target{}, socksFailure, ""
	}
	return t, socksOK, ""
}

// socksAddress reads the destination; for a name ParseHost refuses it
// also returns the name as sent, for the report.
func socksAddress(br *bufio.Reader, atyp byte) (Target, byte, string) {
	switch atyp {
	case 1, 4:
		b := make([]byte, map[byte]int{1: 4, 4: 16}[atyp])
		if _, err := io.ReadFull(br, b); err != nil {
			return Target{}, socksFailure, ""
		}
		a, _ := netip.AddrFromSlice(b)
		return Target{Addr: a.Unmap()}, socksOK, ""
	case 3:
		n, err := br.ReadByte()
		if err != nil || n == 0 {
			return Target{}, socksFailure, ""
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(br, name); err != nil {
			return Target{}, socksFailure, ""
		}
		t, err := ParseHost(string(name))
		if err != nil {
			return Target{}, socksNotAllowed, string(name)
		}
		return t, socksOK, ""
	}
	return Target{}, socksAddrNotSup, ""
}

func socksReply(conn net.Conn, code byte) error {
	_, err := conn.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err
}

// ServeCaptured serves a connection the sandbox's transparent capture
// took: its destination is already known (a name from the DNS stub's
// address map, or an address), and a refusal is a plain close.
func (p *Proxy) ServeCaptured(ctx context.Context, conn net.Conn, t Target) {
	defer conn.Close()
	f, err := p.begin(ctx, "captured", t)
	defer f.end()
	ev, up := &f.ev, f.up
	if err != nil {
		if _, ok := err.(*errDenied); !ok {
			ev.Why = "upstream: " + err.Error()
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, so the client fails at once
		}
		return
	}
	defer up.Close()
	p.tunnel(ev, t, conn, bufio.NewReader(conn), up)
}
