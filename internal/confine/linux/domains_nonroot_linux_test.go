package linux

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// noUpstream is a resolver and dialler that reach nothing and count
// every use: the attacks below must be refused before either is needed.
type noUpstream struct{ lookups, dials atomic.Int64 }

func (n *noUpstream) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	n.lookups.Add(1)
	return nil, errors.New("no upstream in this test")
}

func (n *noUpstream) Dial(context.Context, string, string) (net.Conn, error) {
	n.dials.Add(1)
	return nil, errors.New("no upstream in this test")
}

// TestDomainsNoUpstream: the attacks that need no test internet, so they
// run as root and (TestDomainsNonRoot) as an unprivileged user. Each is
// refused in the sandbox; the in-sandbox controls show the sandbox really
// has its DNS stub and proxy (the refusals are not a broken network).
func TestDomainsNoUpstream(t *testing.T) {
	e := inittest.NewEnv(t)
	if err := os.WriteFile(e.Root+"/attack.py", []byte(attackPy), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	up := &noUpstream{}
	run := func(script string) (inittest.Result, []netproxy.Event) {
		p := e.Policy(policy.NetDomains)
		p.Network.Domains = []string{"pkg.test"}
		c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: e.Vars(),
			Net: &confine.NetOptions{Resolver: up, Dial: up.Dial}})
		if err != nil {
			t.Fatalf("Confine: %v", err)
		}
		res, err := inittest.Run(c, nil)
		if err != nil {
			t.Fatalf("run: %v\n%s", err, res.Stderr)
		}
		return res, c.NetEvents().Events
	}
	// Controls: the stub answers A for any name inside the fake range; the
	// explicit proxy answers (with a refusal) — the network is there.
	res, _ := run(`python3 -c "import socket; print(socket.gethostbyname('anything.example'))"`)
	if a, err := netip.ParseAddr(strings.TrimSpace(res.Stdout)); err != nil || !netproxy.FakeRange.Contains(a) {
		t.Fatalf("control: the stub did not answer: exit %d %q %s %+v", res.Code, res.Stdout, res.Stderr, res.Status.Failure)
	}
	res, _ = run(`python3 "$ROOT/attack.py" dnstcp pkg.test`)
	if a, err := netip.ParseAddr(strings.TrimPrefix(strings.TrimSpace(res.Stdout), "OK:")); err != nil || !netproxy.FakeRange.Contains(a) {
		t.Fatalf("control: the stub over TCP: %q %s", res.Stdout, res.Stderr)
	}
	res, _ = run(`env`)
	for _, v := range []string{"HTTPS_PROXY=http://127.0.0.1:3128", "http_proxy=http://127.0.0.1:3128", "ALL_PROXY=socks5h://127.0.0.1:1080", "NO_PROXY=localhost,127.0.0.1,::1", "npm_config_https_proxy=", "PIP_PROXY="} {
		if !strings.Contains(res.Stdout, v) {
			t.Fatalf("the command's environment lacks %s:\n%s", v, res.Stdout)
		}
	}
	res, _ = run(`python3 "$ROOT/attack.py" ownserver`)
	if !strings.HasPrefix(res.Stdout, "OK:") {
		t.Fatalf("control: the sandbox's own server on a dev port: %s %s", res.Stdout, res.Stderr)
	}
	for _, tc := range []struct{ name, args, reason string }{
		{"unlisted name via the proxy", "connect evil.test:443", netproxy.ReasonAllowlist},
		{"unlisted name captured", "tcp evil.test 443", netproxy.ReasonAllowlist},
		{"host-loopback address", "tcp 127.0.0.1 80", netproxy.ReasonPrivate},
		{"IPv6 literal captured", "tcp 2001:db8::1 443", netproxy.ReasonAllowlist},
		{"IPv6 loopback captured", "tcp ::1 443", netproxy.ReasonPrivate},
		{"fake address never given out", "tcp 198.18.7.7 443", netproxy.ReasonPrivate},
		{"the host's TCP listener through the namespace", "tcp 127.0.0.1 " + itoaPort(e.TCPPort), ""},
		{"UDP straight out", "udp 198.51.100.10 443", ""},
		{"DNS TXT to the stub", "txt 127.0.0.1", ""},
		{"handoff socket reachable", "handoff", ""},
		{"AF_VSOCK", "vsock", ""},
		{"raw socket", "raw", ""},
		{"packet socket", "packet", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, evs := run(`python3 "$ROOT/attack.py" ` + tc.args)
			if !strings.HasPrefix(res.Stdout, "BLOCKED:") {
				t.Fatalf("not blocked: exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
			}
			if tc.reason != "" && (len(evs) == 0 || evs[0].Reason != tc.reason) {
				t.Fatalf("want a %s report, got %+v", tc.reason, evs)
			}
			t.Logf("%s", strings.TrimSpace(res.Stdout))
		})
	}
	if up.lookups.Load() != 0 || up.dials.Load() != 0 {
		t.Fatalf("a refused connection reached the resolver (%d) or the dialler (%d)", up.lookups.Load(), up.dials.Load())
	}
	// Unconfined controls for the socket families: they exist on this host.
	for _, fam := range []string{"vsock"} {
		out, err := execPython(e.Root+"/attack.py", fam)
		if err != nil || !strings.HasPrefix(out, "OK:") {
			t.Fatalf("control %s (unconfined) failed, the attack proves nothing: %v %s", fam, err, out)
		}
	}
}

func TestDomainsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestDomainsNoUpstream|TestVsockRefused)$")
}

func itoaPort(p int) string {
	return netip.AddrPortFrom(netip.IPv4Unspecified(), uint16(p)).String()[len("0.0.0.0:"):]
}

func execPython(script string, args ...string) (string, error) {
	out, err := execCommand("python3", append([]string{script}, args...)...)
	return string(out), err
}
