package netrule

import (
	"encoding/binary"
	"hash/fnv"
	"net/netip"
	"strings"
	"sync"
)

// FakeRange is where the sandbox's DNS stub takes the addresses it answers
// with (RFC 2544's benchmarking range: never a real destination). Every
// connection to one of them is captured and mapped back to its name.
var FakeRange = netip.MustParsePrefix("198.18.0.0/15")

// MaxFakeNames bounds the stub's table: names are never evicted (an
// address must keep meaning one name for the whole run), so a command
// that asks for endless names is refused after this many, not given a
// recycled address that would send a connection to the wrong host.
const MaxFakeNames = 16384

const fakeSlots = 1 << 17 // addresses in 198.18.0.0/15

// FakeTable hands out one stable address per name from FakeRange: the
// FNV-1a slot of the name, probing forward on a collision; never evicted.
type FakeTable struct {
	mu     sync.Mutex
	byName map[string]netip.Addr
	byAddr map[netip.Addr]string
}

// NewFakeTable returns an empty table.
func NewFakeTable() *FakeTable {
	return &FakeTable{byName: map[string]netip.Addr{}, byAddr: map[netip.Addr]string{}}
}

// Addr returns the name's address, allocating one on first use; false
// when the table is full.
func (t *FakeTable) Addr(name string) (netip.Addr, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a, ok := t.byName[name]; ok {
		return a, true
	}
	if len(t.byName) >= MaxFakeNames {
		return netip.Addr{}, false
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	slot := h.Sum32() % fakeSlots
	base := FakeRange.Addr().As4()
	for {
		// Slot 0 (198.18.0.0) and the range's last address are skipped:
		// some clients treat .0 and broadcast-looking addresses specially.
		if slot != 0 && slot != fakeSlots-1 {
			n := binary.BigEndian.Uint32(base[:]) + slot
			var b [4]byte
			binary.BigEndian.PutUint32(b[:], n)
			a := netip.AddrFrom4(b)
			if _, used := t.byAddr[a]; !used {
				t.byName[name], t.byAddr[a] = a, name
				return a, true
			}
		}
		slot = (slot + 1) % fakeSlots
	}
}

// Name is the name an address was given to, if any.
func (t *FakeTable) Name(a netip.Addr) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.byAddr[a.Unmap()]
	return n, ok
}

// DNS constants (RFC 1035).
const (
	dnsTypeA    = 1
	dnsTypeAAAA = 28
	dnsClassIN  = 1

	rcodeOK       = 0
	rcodeFormErr  = 1
	rcodeServFail = 2
	rcodeNotImp   = 4
	rcodeRefused  = 5
)

// AnswerDNS answers one DNS query the way the sandbox's stub does: an A
// question for a valid name gets the name's stable fake address (TTL 1),
// AAAA gets no records (the command falls back to IPv4 and is captured
// there), anything else — TXT, MX, PTR, ANY, several questions, another
// opcode or class, a name ParseHost refuses — is REFUSED. Nothing is ever
// forwarded anywhere, so DNS cannot carry data out (no TXT tunnel: the
// names asked for stay in this table). It returns nil for input that is
// not a query at all (too short, or a response), which is dropped.
func AnswerDNS(q []byte, t *FakeTable) []byte {
	if len(q) < 12 || q[2]&0x80 != 0 { // header, QR=0
		return nil
	}
	opcode := (q[2] >> 3) & 0x0f
	qd := binary.BigEndian.Uint16(q[4:6])
	if opcode != 0 {
		return dnsReply(q, 12, rcodeNotImp, nil)
	}
	if qd != 1 || binary.BigEndian.Uint16(q[6:8]) != 0 || binary.BigEndian.Uint16(q[8:10]) != 0 {
		return dnsReply(q, 12, rcodeFormErr, nil)
	}
	name, end, ok := readQName(q, 12)
	if !ok || len(q) < end+4 {
		return dnsReply(q, 12, rcodeFormErr, nil)
	}
	qtype := binary.BigEndian.Uint16(q[end : end+2])
	qclass := binary.BigEndian.Uint16(q[end+2 : end+4])
	qend := end + 4
	if qclass != dnsClassIN {
		return dnsReply(q, qend, rcodeRefused, nil)
	}
	target, err := ParseHost(name)
	if err != nil || target.IsIP() {
		return dnsReply(q, qend, rcodeRefused, nil)
	}
	switch qtype {
	case dnsTypeAAAA:
		return dnsReply(q, qend, rcodeOK, nil)
	case dnsTypeA:
		a, ok := t.Addr(target.Name)
		if !ok {
			return dnsReply(q, qend, rcodeServFail, nil)
		}
		ip := a.As4()
		return dnsReply(q, qend, rcodeOK, ip[:])
	}
	return dnsReply(q, qend, rcodeRefused, nil)
}

// readQName reads an uncompressed name (a question never needs
// compression) and returns it dotted, without the root.
func readQName(q []byte, off int) (string, int, bool) {
	var b strings.Builder
	total := 0
	for {
		if off >= len(q) {
			return "", 0, false
		}
		l := int(q[off])
		off++
		if l == 0 {
			break
		}
		if l > maxLabel || off+l > len(q) {
			return "", 0, false
		}
		total += l + 1
		if total > 255 {
			return "", 0, false
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		label := q[off : off+l]
		for _, c := range label {
			if c == '.' { // a dot inside a label would change the name's meaning
				return "", 0, false
			}
		}
		b.Write(label)
		off += l
	}
	if b.Len() == 0 {
		return "", 0, false
	}
	return b.String(), off, true
}

// dnsReply builds the response: the query's header and question (up to
// qend) with QR, AA and RA set, the rcode, and one A record when a is set.
func dnsReply(q []byte, qend int, rcode byte, a []byte) []byte {
	out := make([]byte, 0, qend+16)
	out = append(out, q[:qend]...)
	out[2] = 0x80 | (q[2] & 0x79) | 0x04 // QR, opcode and RD kept, AA
	out[3] = 0x80 | rcode                // RA
	if qend == 12 {
		binary.BigEndian.PutUint16(out[4:6], 0)
	}
	var an uint16
	if a != nil {
		an = 1
	}
	binary.BigEndian.PutUint16(out[6:8], an)
	binary.BigEndian.PutUint16(out[8:10], 0)
	binary.BigEndian.PutUint16(out[10:12], 0)
	if a != nil {
		out = append(out, 0xc0, 12, 0, dnsTypeA, 0, dnsClassIN, 0, 0, 0, 1, 0, 4)
		out = append(out, a...)
	}
	return out
}
