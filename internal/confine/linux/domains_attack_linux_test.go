package linux

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
)

// udpAnswerer listens on the test internet (198.51.100.10:53 and :4433)
// and answers every datagram as a DNS server with one record would: the
// control shows UDP and DNS straight out would work without the sandbox.
func (tn *testInternet) udpAnswerer(t *testing.T) *atomic.Int64 {
	t.Helper()
	var got atomic.Int64
	for _, addr := range []string{"198.51.100.10:53", "198.51.100.10:4433"} {
		c := tn.listenUDP(t, addr)
		go func() {
			buf := make([]byte, 1500)
			for {
				n, from, err := c.ReadFrom(buf)
				if err != nil {
					return
				}
				got.Add(1)
				if n >= 12 {
					r := append([]byte(nil), buf[:n]...)
					r[2] |= 0x80
					r[3] = 0x80
					r[7] = 1
					c.WriteTo(r, from)
				}
			}
		}()
	}
	return &got
}

// TestDomainsAttacks is the attack table: each attack is refused inside
// the sandbox (and reported when it reached the proxy), and where the
// attack needs the network, its unconfined control from the egress
// namespace succeeds — the attack is real.
func TestDomainsAttacks(t *testing.T) {
	e := inittest.NewEnv(t)
	tn := newTestInternet(t, e.Root)
	tn.names["a.pkg.test"] = []string{"198.51.100.10"}
	tn.names["evilpkg.test"] = []string{"198.51.100.10"}
	udpGot := tn.udpAnswerer(t)
	if err := os.WriteFile(e.Root+"/attack.py", []byte(attackPy), 0o644); err != nil {
		t.Fatal(err)
	}
	all := []string{"pkg.test", "other.test", "meta.test", "lo.test", "ten.test", "rebind.test", "v6lo.test"}
	for _, tc := range []struct {
		name    string
		allow   []string
		args    string
		reason  string // the reported reason; "" when nothing reaches the proxy
		control bool   // run the same attack from the egress namespace: it must succeed
	}{
		{"SNI of another host", all, "sni", netproxy.ReasonSNIMismatch, false},
		{"Host header of another host in a tunnel", all, "hosttunnel", netproxy.ReasonHostMatch, false},
		{"Host header of another host, absolute form", all, "hostabs", netproxy.ReasonHostMatch, false},
		{"IPv6 literal", all, "connect [2001:db8::10]:80", netproxy.ReasonAllowlist, false},
		{"name resolving to metadata", all, "connect meta.test:80", netproxy.ReasonPrivate, false},
		{"name resolving to loopback", all, "connect lo.test:80", netproxy.ReasonPrivate, false},
		{"name resolving to 10/8", all, "connect ten.test:80", netproxy.ReasonPrivate, false},
		{"name resolving to ::1", all, "connect v6lo.test:80", netproxy.ReasonPrivate, false},
		{"IPv4 literal", all, "connect 198.51.100.10:80", netproxy.ReasonAllowlist, false},
		{"decimal literal", all, "connect 2130706433:80", netproxy.ReasonBadRequest, false},
		{"octal literal", all, "connect 0177.0.0.1:80", netproxy.ReasonBadRequest, false},
		{"IPv4-mapped IPv6 literal", all, "connect [::ffff:127.0.0.1]:80", netproxy.ReasonPrivate, false},
		{"IPv6 literal unbracketed", all, "connect ::1:80", netproxy.ReasonBadRequest, false},
		{"CR LF in a SOCKS name", all, `socks 'pkg.test\r\nHost:evil'`, netproxy.ReasonBadRequest, false},
		{"NUL in a SOCKS name", all, `socks 'pkg.test\x00evil.test'`, netproxy.ReasonBadRequest, false},
		{"over-long name", all, "socks " + strings.Repeat("a", 250) + ".test", netproxy.ReasonBadRequest, false},
		{"wildcard apex", []string{"*.pkg.test"}, "connect pkg.test:80", netproxy.ReasonAllowlist, false},
		{"wildcard evil prefix", []string{"*.pkg.test"}, "connect evilpkg.test:80", netproxy.ReasonAllowlist, false},
		{"direct connect to a host address (captured)", all, "tcp 198.51.100.10 80", netproxy.ReasonAllowlist, true},
		{"direct connect to an uncaptured port", all, "tcp 198.51.100.10 4444", "", false},
		{"UDP/QUIC straight out", all, "udp 198.51.100.10 4433", "", true},
		{"DNS TXT to the stub", all, "txt 127.0.0.1", "", false},
		{"DNS TXT straight out", all, "txt 198.51.100.10", "", true},
		{"relay inside the sandbox", []string{"pkg.test"}, "relay evil.test", netproxy.ReasonAllowlist, false},
		{"handoff socket reachable", all, "handoff", "", false},
		{"AF_VSOCK", all, "vsock", "", true},
		{"raw socket", all, "raw", "", true},
		{"packet socket", all, "packet", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tn.Dialled())
			udpBefore := udpGot.Load()
			res, evs := domainsRun(t, e, tn, tc.allow, nil, `python3 "$ROOT/attack.py" `+tc.args)
			if !strings.HasPrefix(res.Stdout, "BLOCKED:") {
				t.Fatalf("not blocked: exit %d\nstdout: %s\nstderr: %s\nevents: %+v", res.Code, res.Stdout, res.Stderr, evs)
			}
			if tc.reason != "" && !slices.ContainsFunc(evs, func(e netproxy.Event) bool { return e.Verdict == netproxy.Deny && e.Reason == tc.reason }) {
				t.Fatalf("no %s decision reported: %+v (stdout %s)", tc.reason, evs, res.Stdout)
			}
			for _, ev := range evs {
				if netproxy.Printable(ev.Host) != ev.Host || netproxy.Printable(ev.Why) != ev.Why {
					t.Fatalf("a report carries unprintable bytes: %q %q", ev.Host, ev.Why)
				}
			}
			for _, d := range tn.Dialled()[before:] {
				// The SNI and in-tunnel Host checks run after the allowed name was
				// dialled: only the allowed host's address may appear.
				afterDial := tc.name == "SNI of another host" || tc.name == "Host header of another host in a tunnel"
				if !afterDial || !strings.HasPrefix(d, "198.51.100.10:") {
					t.Fatalf("the proxy dialled %s", d)
				}
			}
			if n := udpGot.Load() - udpBefore; n != 0 {
				t.Fatalf("%d datagrams reached the test internet", n)
			}
			if tc.control {
				ctl := exec.Command("ip", append([]string{"netns", "exec", tn.egress, "python3", e.Root + "/attack.py"}, strings.Fields(tc.args)...)...)
				out, err := ctl.CombinedOutput()
				if err != nil || !strings.HasPrefix(string(out), "OK:") {
					t.Fatalf("control (unconfined) did not succeed, the attack proves nothing: %v\n%s", err, out)
				}
			}
			t.Logf("%s", strings.TrimSpace(res.Stdout))
		})
	}
}

// A name that answers public first and private on the next lookup: the
// proxy checks and dials the address of each connection's own lookup, so
// the second connection is refused and loopback is never dialled.
func TestDomainsRebinding(t *testing.T) {
	e := inittest.NewEnv(t)
	tn := newTestInternet(t, e.Root)
	res, evs := domainsRun(t, e, tn, []string{"rebind.test"}, nil,
		`curl -fsS --max-time 5 http://rebind.test/; echo; curl -fsS --max-time 5 http://rebind.test/ && echo SECOND-REACHED`)
	if !strings.Contains(res.Stdout, "hello from rebind.test") || strings.Contains(res.Stdout, "SECOND-REACHED") {
		t.Fatalf("stdout %s\nstderr %s", res.Stdout, res.Stderr)
	}
	if len(evs) != 2 || evs[0].Verdict != netproxy.Allow || evs[1].Reason != netproxy.ReasonPrivate {
		t.Fatalf("events %+v", evs)
	}
	for _, d := range tn.Dialled() {
		if !strings.HasPrefix(d, "198.51.100.10:") {
			t.Fatalf("dialled %s", d)
		}
	}
}
