package landlock

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// upstream is the proxy's resolver and dialler for the tests that need no
// network namespace: pkg.test is a local HTTP server standing in for
// 198.51.100.10; every other address is unreachable.
type upstream struct {
	srv    string
	mu     sync.Mutex
	dialed []string
}

func newUpstream(t *testing.T) *upstream {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello from " + r.Host))
	}))
	t.Cleanup(s.Close)
	return &upstream{srv: s.Listener.Addr().String()}
}

func (u *upstream) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	switch host {
	case "pkg.test":
		return []netip.Addr{netip.MustParseAddr("198.51.100.10")}, nil
	case "evil.test":
		return []netip.Addr{netip.MustParseAddr("198.51.100.12")}, nil
	case "other.test":
		return []netip.Addr{netip.MustParseAddr("198.51.100.10")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (u *upstream) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	u.mu.Lock()
	u.dialed = append(u.dialed, addr)
	u.mu.Unlock()
	if addr != "198.51.100.10:80" {
		return nil, errors.New("unreachable in this test")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, u.srv)
}

// domainsRun is one command under the domains network on this backend.
type domainsRun struct {
	t     *testing.T
	e     *inittest.Env
	up    confine.NetOptions
	allow []string
	// httpPort and socksPort are the last run's proxy ports; onProxy, when
	// set, is called with them before the command starts.
	httpPort, socksPort uint16
	onProxy             func(h, s uint16)
	ask                 bool
}

func (d *domainsRun) run(argv []string, env ...string) (inittest.Result, []netproxy.Event) {
	d.t.Helper()
	prov := &Provider{opts: Options{onProxy: func(h, s uint16) {
		d.httpPort, d.socksPort = h, s
		if d.onProxy != nil {
			d.onProxy(h, s)
		}
	}}}
	testenv.Need(d.t, "landlock backend", prov.Available())
	p := d.e.Policy(policy.NetDomains)
	p.Network.Domains = d.allow
	p.Network.Ask = d.ask
	net := d.up
	c, err := prov.Confine(confine.Request{Argv: argv, Policy: p, Env: append(d.e.Vars(), env...), Net: &net})
	if err != nil {
		d.t.Fatalf("Confine: %v", err)
	}
	if c.Enforcement.Network != confine.NetPartial {
		d.t.Fatalf("network enforcement %q, want partial", c.Enforcement.Network)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		d.t.Fatalf("run: %v\n%s", err, res.Stderr)
	}
	return res, c.NetEvents().Events
}

// unconfined runs argv as the control: the same probe, no sandbox.
func unconfined(t *testing.T, argv []string, env ...string) string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append([]string{"PATH=/usr/local/bin:/usr/bin:/bin"}, env...)
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// evilAt serves "EVIL" on addr: a host that is not the proxy, reachable
// from the host's network (the unconfined controls reach it).
func evilAt(t *testing.T, addr string) {
	t.Helper()
	l, err := net.Listen("tcp4", addr)
	if err != nil {
		t.Fatalf("evil listener on %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("EVIL\n"))
			c.Close()
		}
	}()
}

// TestDomainsProxyOnly is the landlock backend's domains network against
// the attacks that need no network namespace (so it also runs as an
// unprivileged user, TestDomainsNonRoot): clients that honour the proxy
// variables reach an allowed name and are refused another with the
// proxy's 403, every decision reported; whatever ignores them is refused,
// each attack with an unconfined control that shows it works.
func TestDomainsProxyOnly(t *testing.T) {
	e := inittest.NewEnv(t)
	probe := e.Root + "/probe.py"
	if err := os.WriteFile(probe, []byte(probePy), 0o644); err != nil {
		t.Fatal(err)
	}
	up := newUpstream(t)
	d := &domainsRun{t: t, e: e, up: confine.NetOptions{Resolver: up, Dial: up.Dial}, allow: []string{"pkg.test"}}
	py := func(args ...string) []string { return append([]string{"python3", probe}, args...) }
	hp := func() string { return strconv.Itoa(int(d.httpPort)) }

	t.Run("proxy variables", func(t *testing.T) {
		res, _ := d.run([]string{"env"})
		for _, v := range []string{"HTTP_PROXY=http://127.0.0.1:" + hp(), "https_proxy=http://127.0.0.1:" + hp(),
			"ALL_PROXY=socks5h://127.0.0.1:" + strconv.Itoa(int(d.socksPort)), "NO_PROXY=localhost,127.0.0.1,::1", "npm_config_https_proxy=", "PIP_PROXY="} {
			if !strings.Contains(res.Stdout, v) {
				t.Fatalf("the command's environment lacks %s:\n%s", v, res.Stdout)
			}
		}
	})
	t.Run("curl allowed through the proxy", func(t *testing.T) {
		res, evs := d.run([]string{"curl", "-sS", "--max-time", "10", "http://pkg.test/x"})
		if res.Code != 0 || res.Stdout != "hello from pkg.test" {
			t.Fatalf("curl via HTTP_PROXY: exit %d %q %s", res.Code, res.Stdout, res.Stderr)
		}
		if len(evs) != 1 || evs[0].Verdict != netproxy.Allow || evs[0].Host != "pkg.test" {
			t.Fatalf("events %+v", evs)
		}
	})
	t.Run("curl denied by name", func(t *testing.T) {
		res, evs := d.run([]string{"curl", "-sS", "-i", "--max-time", "10", "http://evil.test/"})
		if !strings.Contains(res.Stdout, "403") || !strings.Contains(res.Stdout, "X-Proxy-Error: "+netproxy.ReasonAllowlist) {
			t.Fatalf("not refused with the proxy's 403: %q %s", res.Stdout, res.Stderr)
		}
		if len(evs) != 1 || evs[0].Verdict != netproxy.Deny || evs[0].Host != "evil.test" || evs[0].Reason != netproxy.ReasonAllowlist {
			t.Fatalf("events %+v", evs)
		}
	})
	t.Run("socks5 by name", func(t *testing.T) {
		res, evs := d.run([]string{"sh", "-c", `curl -sS --max-time 10 -x "$ALL_PROXY" http://pkg.test/s`})
		if res.Stdout != "hello from pkg.test" || len(evs) != 1 || evs[0].Via != "socks5" {
			t.Fatalf("socks5: %q %s %+v", res.Stdout, res.Stderr, evs)
		}
	})

	t.Run("ask a person", func(t *testing.T) {
		var asked []string
		d.ask = true
		d.up.Ask = func(_ context.Context, tg netproxy.Target) (netproxy.Verdict, error) {
			asked = append(asked, tg.Host())
			if tg.Host() == "other.test" {
				return netproxy.Allow, nil
			}
			return netproxy.Deny, nil
		}
		defer func() { d.ask, d.up.Ask = false, nil }()
		res, evs := d.run([]string{"sh", "-c", "curl -sS --max-time 10 http://other.test/a; curl -sS -o /dev/null -w ' %{http_code}' --max-time 10 http://unlisted.test/"})
		if res.Stdout != "hello from other.test 403" || len(evs) != 2 || evs[0].Verdict != netproxy.Allow || evs[1].Reason != netproxy.ReasonDeclined {
			t.Fatalf("ask: %q %s %+v", res.Stdout, res.Stderr, evs)
		}
		if strings.Join(asked, ",") != "other.test,unlisted.test" {
			t.Fatalf("asked %v", asked)
		}
	})

	// Direct connects: a host listener (the Env's), and another address at
	// the proxy's very port — Landlock's TCP rule, which names only the
	// port, would let that through; the supervisor does not.
	var evilOnce sync.Once
	d.onProxy = func(h, _ uint16) {
		evilOnce.Do(func() { evilAt(t, "127.0.0.2:"+strconv.Itoa(int(h))) })
	}
	d.run([]string{"true"}) // learn the ports for the next run, and start the evil twin on them
	d.onProxy = func(h, _ uint16) { evilAt(t, "127.0.0.2:"+strconv.Itoa(int(h))) }
	for _, c := range []struct {
		name string
		args func() []string
	}{
		{"host server", func() []string { return py("connect", "127.0.0.1", strconv.Itoa(e.TCPPort)) }},
		{"host server non-blocking", func() []string { return py("nbconnect", "127.0.0.1", strconv.Itoa(e.TCPPort)) }},
	} {
		t.Run("direct "+c.name, func(t *testing.T) {
			if out := unconfined(t, c.args()); !strings.HasPrefix(out, "OK:") {
				t.Fatalf("control (unconfined) failed, the attack proves nothing: %s", out)
			}
			res, _ := d.run(c.args())
			if strings.TrimSpace(res.Stdout) != "ERR:EACCES" {
				t.Fatalf("direct connect not refused: %q %s", res.Stdout, res.Stderr)
			}
		})
	}
	// The evil twin at the proxy's port: its port is known only once the
	// run's listeners are open, so the script reads it from HTTP_PROXY.
	evilScript := func(op string) []string {
		return []string{"sh", "-c", `python3 "$0" ` + op + ` 127.0.0.2 "${HTTP_PROXY##*:}"`, probe}
	}
	for _, op := range []string{"connect", "nbconnect", "tfo"} {
		t.Run("evil at the proxy port "+op, func(t *testing.T) {
			res, _ := d.run(evilScript(op))
			// The control runs while that run's evil twin still listens.
			out := unconfined(t, py(op, "127.0.0.2", hp()))
			if !strings.HasPrefix(out, "OK:") {
				t.Fatalf("control (unconfined) %s to 127.0.0.2:%s failed, the attack proves nothing: %s", op, hp(), out)
			}
			if strings.TrimSpace(res.Stdout) != "ERR:EACCES" {
				t.Fatalf("%s to the evil twin at the proxy's port not refused: %q %s", op, res.Stdout, res.Stderr)
			}
		})
	}
	d.onProxy = nil
	t.Run("proxy over IPv6 loopback and non-blocking", func(t *testing.T) {
		res, _ := d.run([]string{"sh", "-c", `python3 "$0" connect6 ::1 "${HTTP_PROXY##*:}" && python3 "$0" nbconnect 127.0.0.1 "${HTTP_PROXY##*:}"`, probe})
		if !strings.Contains(res.Stdout, "OK:::ffff:127.0.0.1") || !strings.Contains(res.Stdout, "OK:127.0.0.1:"+hp()) {
			t.Fatalf("the proxy was not reachable as ::1 and non-blocking: %q %s", res.Stdout, res.Stderr)
		}
	})
	t.Run("go non-blocking dial", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		res, _ := d.run([]string{"sh", "-c", `RF_LL_ADDR=127.0.0.1:${HTTP_PROXY##*:} "$0"; RF_LL_ADDR=127.0.0.1:` + strconv.Itoa(e.TCPPort) + ` "$0"`, self}, "RF_LL_HELPER=godial")
		lines := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "OK:127.0.0.1:") || !strings.Contains(lines[1], "permission denied") {
			t.Fatalf("go dial: %q %s", res.Stdout, res.Stderr)
		}
		if out := unconfined(t, []string{self}, "RF_LL_HELPER=godial", "RF_LL_ADDR=127.0.0.1:"+strconv.Itoa(e.TCPPort)); !strings.HasPrefix(out, "OK:") {
			t.Fatalf("control (unconfined) go dial failed: %s", out)
		}
	})
	t.Run("node through the proxy and direct", func(t *testing.T) {
		if _, err := exec.LookPath("node"); err != nil {
			testenv.Need(t, "node", err)
		}
		js := `const net=require("net");const [host,port]=process.argv.slice(1);
const s=net.connect({host,port:+port},()=>{s.write("GET http://pkg.test/n HTTP/1.1\r\nHost: pkg.test\r\nConnection: close\r\n\r\n")});
let b="";s.on("data",d=>b+=d);s.on("end",()=>console.log("OK:"+b.split("\r\n\r\n")[1]));s.on("error",e=>console.log("ERR:"+e.code));`
		res, _ := d.run([]string{"sh", "-c", `node -e "$0" 127.0.0.1 "${HTTP_PROXY##*:}"; node -e "$0" 127.0.0.1 ` + strconv.Itoa(e.TCPPort), js})
		if res.Stdout != "OK:hello from pkg.test\nERR:EACCES\n" {
			t.Fatalf("node: %q %s", res.Stdout, res.Stderr)
		}
	})

	// Other ways out: each refused in the sandbox, each working unconfined
	// (where an unprivileged user can make the socket at all).
	root := os.Geteuid() == 0
	for _, c := range []struct {
		op      string
		control bool // the control works for this user
	}{
		{"udp", true}, {"udp6", true}, {"mptcp", true}, {"sctp", false}, {"vsock", true},
		{"raw", root}, {"packet", root}, {"netlink", true}, {"listen", true}, {"listen-unbound", true},
	} {
		t.Run("refused "+c.op, func(t *testing.T) {
			args := py(c.op, "127.0.0.1", strconv.Itoa(e.TCPPort))
			if c.op == "udp" || c.op == "udp6" {
				args = py(c.op, "127.0.0.1", strconv.Itoa(e.UDPPort))
			}
			res, _ := d.run(args)
			// EACCES, not the kernel's own EPERM or EAFNOSUPPORT: the
			// sandbox refused it, whatever this user may do (vsock is
			// EAFNOSUPPORT by the shared filter, as a kernel without it).
			want := "ERR:EACCES"
			if c.op == "vsock" {
				want = "ERR:EAFNOSUPPORT"
			}
			if got := strings.TrimSpace(res.Stdout); got != want {
				t.Fatalf("%s: %q, want %s (stderr %s)", c.op, got, want, res.Stderr)
			}
			out := unconfined(t, args)
			switch {
			case c.control && !strings.HasPrefix(out, "OK:"):
				t.Fatalf("control (unconfined) %s failed, the attack proves nothing: %s", c.op, out)
			case !c.control:
				t.Logf("control %s (not available to this user/kernel, the errno above is the sandbox's): %s", c.op, out)
			}
		})
	}
	t.Run("own unix server still works", func(t *testing.T) {
		res, _ := d.run(py("listen-unix", e.Root))
		if strings.TrimSpace(res.Stdout) != "OK:unix-ok" {
			t.Fatalf("unix listen: %q %s", res.Stdout, res.Stderr)
		}
	})

	// TOCTOU: a second thread flips the sockaddr between the proxy and the
	// evil twin while connects are in flight. The race is real (both the
	// proxy and refusals are seen); no connect may land on the twin.
	t.Run("toctou", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		d.onProxy = func(h, _ uint16) { evilAt(t, "127.0.0.2:"+strconv.Itoa(int(h))) }
		defer func() { d.onProxy = nil }()
		res, _ := d.run([]string{"sh", "-c", `RF_LL_GOOD=127.0.0.1:${HTTP_PROXY##*:} RF_LL_BAD=127.0.0.2:${HTTP_PROXY##*:} exec "$0"`, self}, "RF_LL_HELPER=toctou")
		var good, bad, refused int
		if _, err := fmtSscan(res.Stdout, &good, &bad, &refused); err != nil {
			t.Fatalf("toctou helper: %q %s", res.Stdout, res.Stderr)
		}
		t.Logf("toctou: %d to the proxy, %d to the twin, %d refused", good, bad, refused)
		if bad != 0 {
			t.Fatalf("a rewritten sockaddr reached the twin %d times", bad)
		}
		if good == 0 || refused == 0 {
			t.Fatalf("the race never happened (good %d, refused %d): the test proves nothing", good, refused)
		}
		ctl := unconfined(t, []string{self}, "RF_LL_HELPER=toctou", "RF_LL_GOOD=127.0.0.1:"+hp(), "RF_LL_BAD=127.0.0.2:"+hp())
		if _, err := fmtSscan(ctl, &good, &bad, &refused); err != nil || bad == 0 {
			t.Fatalf("control (unconfined): the flipping address never reached the twin: %q", ctl)
		}
	})
}

func TestDomainsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestDomainsProxyOnly|TestDomainsLandlockSecondWall)$")
}
