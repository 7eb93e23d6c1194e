package netproxy

import (
	"encoding/binary"
	"errors"
	"io"
)

// maxRecord is the largest TLS plaintext record (RFC 8446 5.1): a
// ClientHello that does not fit one record is refused, not reassembled.
const maxRecord = 1<<14 + 256

var errNotClientHello = errors.New("not a TLS ClientHello")

// ReadClientHello reads one TLS record from r, which must hold a complete
// ClientHello, and returns the bytes read (to forward unchanged) and the
// server name it asks for ("" when it has no SNI). The proxy compares that
// name with the CONNECT target: a hello for another host is how a client
// reaches a forbidden site through an allowed one (domain fronting).
func ReadClientHello(r io.Reader) (raw []byte, sni string, err error) {
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, "", err
	}
	if hdr[0] != 0x16 || hdr[1] != 3 {
		return hdr, "", errNotClientHello
	}
	n := int(binary.BigEndian.Uint16(hdr[3:]))
	if n == 0 || n > maxRecord {
		return hdr, "", errNotClientHello
	}
	raw = make([]byte, 5+n)
	copy(raw, hdr)
	if _, err := io.ReadFull(r, raw[5:]); err != nil {
		return raw, "", err
	}
	sni, err = parseClientHello(raw[5:])
	return raw, sni, err
}

// reader walks a byte slice; every read past the end sets bad.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || n < 0 || n > len(r.b) {
		r.bad = true
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *reader) u8() int {
	b := r.take(1)
	if b == nil {
		return 0
	}
	return int(b[0])
}

func (r *reader) u16() int {
	b := r.take(2)
	if b == nil {
		return 0
	}
	return int(binary.BigEndian.Uint16(b))
}

func (r *reader) u24() int {
	b := r.take(3)
	if b == nil {
		return 0
	}
	return int(b[0])<<16 | int(b[1])<<8 | int(b[2])
}

// parseClientHello reads a handshake message (RFC 8446 4.1.2) for its
// server_name extension (RFC 6066 3). A hello with two server_name
// extensions, or a name list with more than one host name, is refused:
// servers and proxies could each pick a different one.
func parseClientHello(b []byte) (string, error) {
	r := &reader{b: b}
	if r.u8() != 1 { // client_hello
		return "", errNotClientHello
	}
	body := &reader{b: r.take(r.u24())}
	body.take(2 + 32)     // legacy_version, random
	body.take(body.u8())  // legacy_session_id
	body.take(body.u16()) // cipher_suites
	body.take(body.u8())  // legacy_compression_methods
	if body.bad {
		return "", errNotClientHello
	}
	if len(body.b) == 0 {
		return "", nil // no extensions at all
	}
	exts := &reader{b: body.take(body.u16())}
	sni, seen := "", false
	for len(exts.b) > 0 && !exts.bad {
		typ, data := exts.u16(), exts.take(exts.u16())
		if typ != 0 {
			continue
		}
		if seen {
			return "", errors.New("two server_name extensions")
		}
		seen = true
		name, err := serverName(data)
		if err != nil {
			return "", err
		}
		sni = name
	}
	if exts.bad || body.bad {
		return "", errNotClientHello
	}
	return sni, nil
}

func serverName(data []byte) (string, error) {
	r := &reader{b: data}
	list := &reader{b: r.take(r.u16())}
	name := ""
	for len(list.b) > 0 && !list.bad {
		typ, host := list.u8(), list.take(list.u16())
		if typ != 0 { // host_name
			continue
		}
		if name != "" {
			return "", errors.New("two host names in server_name")
		}
		name = string(host)
	}
	if r.bad || list.bad || len(r.b) != 0 {
		return "", errNotClientHello
	}
	return name, nil
}
