package sandboxnet

import (
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
)

// query is a DNS A question for name (RFC 1035: header, one question).
func query(id uint16, name string) []byte {
	q := binary.BigEndian.AppendUint16(nil, id)
	q = append(q, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0) // RD; one question
	for _, l := range strings.Split(name, ".") {
		q = append(q, byte(len(l)))
		q = append(q, l...)
	}
	return append(q, 0, 0, 1, 0, 1) // root; A, IN
}

// answer is the address in a reply to query(id, name): the last 4 bytes,
// after checking the id and that one answer came back.
func answer(t *testing.T, r []byte, id uint16) netip.Addr {
	t.Helper()
	if len(r) < 16 || binary.BigEndian.Uint16(r) != id || binary.BigEndian.Uint16(r[6:8]) != 1 {
		t.Fatalf("reply %x", r)
	}
	return netip.AddrFrom4([4]byte(r[len(r)-4:]))
}

// The stub, served by serveDNSUDP and serveDNSTCP on the poller's
// sockets, answers a name with the table's fake address over UDP and over
// TCP (length-prefixed, several questions on one connection), the same
// address both ways.
func TestDNSStubServes(t *testing.T) {
	table := netrule.NewFakeTable()
	udp, err := listenUDP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcp, err := listenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go serveDNSUDP(udp, table)
	go serveDNSTCP(tcp, table)

	uc, err := net.Dial("udp", "127.0.0.1:"+strconv.Itoa(port(t, udp)))
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	uc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := uc.Write(query(7, "pkg.test")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	n, err := uc.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	viaUDP := answer(t, buf[:n], 7)
	if !netrule.FakeRange.Contains(viaUDP) {
		t.Fatalf("UDP answer %v outside the fake range", viaUDP)
	}

	tc, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port(t, tcp)))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	tc.SetDeadline(time.Now().Add(5 * time.Second))
	for id := uint16(1); id <= 2; id++ {
		q := query(id, "pkg.test")
		if _, err := tc.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(q))), q...)); err != nil {
			t.Fatal(err)
		}
		var l [2]byte
		if _, err := io.ReadFull(tc, l[:]); err != nil {
			t.Fatal(err)
		}
		r := make([]byte, binary.BigEndian.Uint16(l[:]))
		if _, err := io.ReadFull(tc, r); err != nil {
			t.Fatal(err)
		}
		if got := answer(t, r, id); got != viaUDP {
			t.Fatalf("TCP answer %v, UDP %v", got, viaUDP)
		}
	}
}

// An accepted connection is served through the poller, so its deadline
// holds (a silent client cannot pin one of the stub's few connections, or
// a thread, for ever).
func TestAcceptedHasDeadline(t *testing.T) {
	ln, err := listenTCP(netip.MustParseAddrPort("127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port(t, ln)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fd, err := ln.accept()
	if err != nil {
		t.Fatal(err)
	}
	f := osFile(fd)
	defer f.Close()
	if err := f.SetDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatalf("no deadline on an accepted connection: %v", err)
	}
	start := time.Now()
	if _, err := f.Read(make([]byte, 1)); err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("read of a silent client: %v after %v", err, time.Since(start))
	}
}
