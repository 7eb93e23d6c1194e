//go:build linux

package domaintest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// Run confines script under the domains network with allow and deny,
// proxying through tn, and returns the result and the decisions. The
// enforcement must say the network is fully held.
func Run(t *testing.T, prov confine.Provider, e *inittest.Env, tn *Internet, allow, deny []string, script string) (inittest.Result, []netproxy.Event) {
	t.Helper()
	testenv.Need(t, prov.Name()+" backend", prov.Available())
	p := e.Policy(policy.NetDomains)
	p.Network.Domains, p.Network.Deny = allow, deny
	env := append(e.Vars(), CAVars(tn.CAFile)...)
	env = append(env, "HOME="+e.Root)
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: env,
		Net: &confine.NetOptions{Resolver: tn, Dial: tn.Dial}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	if c.Enforcement.Network != confine.NetFull {
		t.Fatalf("%s reports network %q under domains, want full", prov.Name(), c.Enforcement.Network)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, res.Stderr)
	}
	return res, c.NetEvents().Events
}

// FindEvent is the first decision about host.
func FindEvent(evs []netproxy.Event, host string) (netproxy.Event, bool) {
	for _, e := range evs {
		if e.Host == host {
			return e, true
		}
	}
	return netproxy.Event{}, false
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// RealClients: real clients through the proxy with only the allowed
// names — curl (HTTP and HTTPS), git clone over HTTPS, Python urllib, a
// server-speaks-first protocol and a program that ignores the proxy
// variables (a socket connect by name: captured); each refused for a name
// not in the list, and the refused host never dialled.
func RealClients(t *testing.T, prov confine.Provider) {
	for _, tool := range []string{"curl", "git", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Need(t, tool, err)
		}
	}
	e := inittest.NewEnv(t)
	tn := Shared(t)
	py := `import socket,sys
s=socket.create_connection((sys.argv[1],9418),timeout=5)
s.sendall(b"ping-through-capture")
print(s.recv(100).decode())`
	writeFile(t, e.Root+"/attack.py", AttackPy)
	writeFile(t, e.Root+"/echo.py", py)
	cases := []struct {
		name, script, want, host string
	}{
		{"curl http", "curl -fsS --max-time 10 http://pkg.test/", "hello from pkg.test", "pkg.test"},
		{"curl https", "curl -fsS --max-time 10 https://pkg.test/", "hello from pkg.test", "pkg.test"},
		{"git clone https", `d=$(mktemp -d -p "$ROOT/work") && git -c http.lowSpeedTime=10 clone -q https://pkg.test/repo.git "$d/r" && cat "$d/r/README"`, "fetched-through-the-proxy", "pkg.test"},
		{"python urllib", `python3 -c "import urllib.request; print(urllib.request.urlopen('https://pkg.test/', timeout=10).read().decode())"`, "hello from pkg.test", "pkg.test"},
		{"ssh-like, server speaks first (captured)", `python3 "$ROOT/attack.py" banner pkg.test`, "OK:", "pkg.test"},
		{"socket by name (captured)", `env -u http_proxy -u https_proxy -u HTTP_PROXY -u HTTPS_PROXY -u ALL_PROXY -u all_proxy python3 "$ROOT/echo.py" pkg.test`, "ping-through-capture", "pkg.test"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, evs := Run(t, prov, e, tn, []string{"pkg.test"}, nil, tc.script)
			if res.Code != 0 || !strings.Contains(res.Stdout, tc.want) {
				t.Fatalf("allowed: exit %d\nstdout: %s\nstderr: %s\nevents: %+v", res.Code, res.Stdout, res.Stderr, evs)
			}
			if ev, ok := FindEvent(evs, tc.host); !ok || ev.Verdict != netproxy.Allow || ev.Rule != "pkg.test" {
				t.Fatalf("no allow decision for %s: %+v", tc.host, evs)
			}
			// The same client for a name not in the list: refused and reported.
			other := strings.ReplaceAll(tc.script, "pkg.test", "evil.test")
			before := len(tn.Dialled())
			res, evs = Run(t, prov, e, tn, []string{"pkg.test"}, nil, other)
			if strings.Contains(res.Stdout, tc.want) || res.Code == 0 && !strings.HasPrefix(res.Stdout, "BLOCKED:") {
				t.Fatalf("refused name reached: exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
			}
			ev, ok := FindEvent(evs, "evil.test")
			if !ok || ev.Verdict != netproxy.Deny || ev.Reason != netproxy.ReasonAllowlist {
				t.Fatalf("refusal not reported: %+v", evs)
			}
			for _, d := range tn.Dialled()[before:] {
				if strings.HasPrefix(d, "198.51.100.12:") {
					t.Fatalf("the proxy dialled the refused host: %v", tn.Dialled())
				}
			}
		})
	}
}

// Attacks is the attack table: each attack is refused inside the sandbox
// (and reported when it reached the proxy), and where the attack needs
// the network, its unconfined control from the egress namespace succeeds
// — the attack is real.
func Attacks(t *testing.T, prov confine.Provider) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	e := inittest.NewEnv(t)
	tn := Shared(t)
	tn.UDPReceived(t) // start the answerer
	writeFile(t, e.Root+"/attack.py", AttackPy)
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
			udpBefore := tn.UDPReceived(t)
			res, evs := Run(t, prov, e, tn, tc.allow, nil, `python3 "$ROOT/attack.py" `+tc.args)
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
			if n := tn.UDPReceived(t) - udpBefore; n != 0 {
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

// Rebinding: a name that answers public first and private on the next
// lookup. The proxy checks and dials the address of each connection's own
// lookup, so the second connection is refused and loopback is never
// dialled.
func Rebinding(t *testing.T, prov confine.Provider) {
	e := inittest.NewEnv(t)
	tn := Shared(t)
	tn.SetNames("rebind.test")
	before := len(tn.Dialled())
	res, evs := Run(t, prov, e, tn, []string{"rebind.test"}, nil,
		`curl -fsS --max-time 5 http://rebind.test/; echo; curl -fsS --max-time 5 http://rebind.test/ && echo SECOND-REACHED`)
	if !strings.Contains(res.Stdout, "hello from rebind.test") || strings.Contains(res.Stdout, "SECOND-REACHED") {
		t.Fatalf("stdout %s\nstderr %s", res.Stdout, res.Stderr)
	}
	if len(evs) != 2 || evs[0].Verdict != netproxy.Allow || evs[1].Reason != netproxy.ReasonPrivate {
		t.Fatalf("events %+v", evs)
	}
	for _, d := range tn.Dialled()[before:] {
		if !strings.HasPrefix(d, "198.51.100.10:") {
			t.Fatalf("dialled %s", d)
		}
	}
}

// GoModDownload: `go mod download` from a module proxy on a test host,
// through the sandbox's HTTPS proxy; refused when the proxy's host is not
// allowed.
func GoModDownload(t *testing.T, prov confine.Provider) {
	goBin := "/usr/local/go/bin/go"
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			testenv.Need(t, "a go toolchain", err)
		}
	}
	e := inittest.NewEnv(t)
	tn := Shared(t)
	for _, d := range []string{"/work/m", "/work/gopath", "/work/gopath2", "/work/gocache"} {
		if err := os.MkdirAll(e.Root+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, e.Root+"/work/m/go.mod", "module m\n\ngo 1.21\n")
	script := fmt.Sprintf(`cd "$ROOT/work/m" && export GOPATH="$ROOT/work/gopath" GOCACHE="$ROOT/work/gocache" GOFLAGS=-mod=mod GOSUMDB=off GOTOOLCHAIN=local GOPROXY=https://%%s/mod && %s mod download -json example.test/hello@v1.0.0 && cat "$GOPATH/pkg/mod/example.test/hello@v1.0.0/hello.go"`, goBin)
	res, evs := Run(t, prov, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(script, "pkg.test"))
	if res.Code != 0 || !strings.Contains(res.Stdout, "fetched through the proxy") {
		t.Fatalf("go mod download: exit %d\nstdout %s\nstderr %s\nevents %+v", res.Code, res.Stdout, res.Stderr, evs)
	}
	res, evs = Run(t, prov, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(strings.Replace(script, "work/gopath", "work/gopath2", 1), "other.test"))
	if res.Code == 0 {
		t.Fatalf("download from an unlisted host succeeded: %s", res.Stdout)
	}
	if ev, ok := FindEvent(evs, "other.test"); !ok || ev.Verdict != netproxy.Deny {
		t.Fatalf("refusal not reported: %+v", evs)
	}
}

// NpmInstall: `npm install` from a test registry through the sandbox's
// proxy (npm reads npm_config_https_proxy), refused for a registry not in
// the list.
func NpmInstall(t *testing.T, prov confine.Provider) {
	if _, err := exec.LookPath("npm"); err != nil {
		testenv.Need(t, "npm", err)
	}
	e := inittest.NewEnv(t)
	tn := Shared(t)
	script := `d=$(mktemp -d -p "$ROOT/work") && cd "$d" && echo '{"name":"app","version":"1.0.0"}' > package.json && ` +
		`npm install --no-audit --no-fund --no-update-notifier --fetch-retries=0 --cafile "$NODE_EXTRA_CA_CERTS" --cache "$d/.cache" --registry https://%s/npm/ rf-hello >&2 && ` +
		`node -e 'console.log(require("rf-hello"))'`
	res, evs := Run(t, prov, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(script, "pkg.test"))
	if res.Code != 0 || !strings.Contains(res.Stdout, "installed through the proxy") {
		t.Fatalf("npm install: exit %d\nstdout %s\nstderr %s\nevents %+v", res.Code, res.Stdout, res.Stderr, evs)
	}
	res, evs = Run(t, prov, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(script, "other.test"))
	if res.Code == 0 {
		t.Fatalf("install from an unlisted registry succeeded: %s", res.Stdout)
	}
	if ev, ok := FindEvent(evs, "other.test"); !ok || ev.Verdict != netproxy.Deny {
		t.Fatalf("refusal not reported: %+v", evs)
	}
}

// NoUpstream is a resolver and dialler that reach nothing and count every
// use: attacks that must be refused before either is needed use it.
type NoUpstream struct{ lookups, dials atomic.Int64 }

// LookupNetIP counts and fails.
func (n *NoUpstream) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	n.lookups.Add(1)
	return nil, errors.New("no upstream in this test")
}

// Dial counts and fails.
func (n *NoUpstream) Dial(context.Context, string, string) (net.Conn, error) {
	n.dials.Add(1)
	return nil, errors.New("no upstream in this test")
}

// NoUpstreamAttacks: the attacks that need no test internet, so they run
// as root and as an unprivileged user (the caller reruns its test with
// inittest.RerunAsNonRoot). Each is refused in the sandbox; the
// in-sandbox controls show the sandbox really has its DNS stub, proxy
// variables and loopback (the refusals are not a broken network).
func NoUpstreamAttacks(t *testing.T, prov confine.Provider) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	e := inittest.NewEnv(t)
	writeFile(t, e.Root+"/attack.py", AttackPy)
	testenv.Need(t, prov.Name()+" backend", prov.Available())
	up := &NoUpstream{}
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
		{"the host's TCP listener through the namespace", "tcp 127.0.0.1 " + strconv.Itoa(e.TCPPort), ""},
		{"UDP straight out", "udp 198.51.100.10 443", ""},
		{"DNS TXT to the stub", "txt 127.0.0.1", ""},
		{"handoff socket reachable", "handoff", ""},
		{"AF_VSOCK", "vsock", ""},
		{"raw socket", "raw", ""},
		{"packet socket", "packet", ""},
		// The capabilities pid 1 held for its setup are gone: no route
		// change, no new user namespace to regain them in.
		{"lo flags changed (CAP_NET_ADMIN)", "netadmin", ""},
		{"port below 1024 (CAP_NET_BIND_SERVICE)", "lowport", ""},
		{"new user namespace", "userns", ""},
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
	// Unconfined controls: these attacks work on this host outside the
	// sandbox (netadmin and lowport in a user and network namespace of its
	// own, where the process holds the capabilities the sandbox's pid 1
	// held for its setup).
	for _, args := range [][]string{{"vsock"}} {
		out, err := exec.Command("python3", append([]string{e.Root + "/attack.py"}, args...)...).CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "OK:") {
			t.Fatalf("control %v (unconfined) failed, the attack proves nothing: %v %s", args, err, out)
		}
	}
	for _, a := range []string{"netadmin", "lowport"} {
		if out, err := exec.Command("unshare", "-Urn", "python3", e.Root+"/attack.py", a).CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "OK:") {
			t.Fatalf("control %s (unconfined, own namespace) failed, the attack proves nothing: %v %s", a, err, out)
		}
	}
	if out, err := exec.Command("python3", e.Root+"/attack.py", "userns").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "OK:") {
		t.Fatalf("control userns (unconfined) failed, the attack proves nothing: %v %s", err, out)
	}
}
