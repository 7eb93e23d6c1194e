package linux

import (
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// domainsRun confines script under the domains network with allow and
// deny, proxying through tn, and returns the result and the decisions.
func domainsRun(t *testing.T, e *inittest.Env, tn *testInternet, allow, deny []string, script string) (inittest.Result, []netproxy.Event) {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	p := e.Policy(policy.NetDomains)
	p.Network.Domains, p.Network.Deny = allow, deny
	env := append(e.Vars(), caVars(tn.CAFile)...)
	env = append(env, "HOME="+e.Root)
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: env,
		Net: &confine.NetOptions{Resolver: tn, Dial: tn.Dial}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, res.Stderr)
	}
	return res, c.NetEvents().Events
}

func findEvent(evs []netproxy.Event, host string) (netproxy.Event, bool) {
	for _, e := range evs {
		if e.Host == host {
			return e, true
		}
	}
	return netproxy.Event{}, false
}

// Real clients through the proxy with only the allowed names: curl (HTTP
// and HTTPS), git clone over HTTPS, Python urllib, and a program that
// ignores the proxy variables (a socket connect by name: captured); each
// refused for a name not in the list.
func TestDomainsRealClients(t *testing.T) {
	for _, tool := range []string{"curl", "git", "python3"} {
		if _, err := execLookPath(tool); err != nil {
			testenv.Need(t, tool, err)
		}
	}
	e := inittest.NewEnv(t)
	tn := newTestInternet(t, e.Root)
	py := `import socket,sys
s=socket.create_connection((sys.argv[1],9418),timeout=5)
s.sendall(b"ping-through-capture")
print(s.recv(100).decode())`
	if err := os.WriteFile(e.Root+"/attack.py", []byte(attackPy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.Root+"/echo.py", []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
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
			res, evs := domainsRun(t, e, tn, []string{"pkg.test"}, nil, tc.script)
			if res.Code != 0 || !strings.Contains(res.Stdout, tc.want) {
				t.Fatalf("allowed: exit %d\nstdout: %s\nstderr: %s\nevents: %+v", res.Code, res.Stdout, res.Stderr, evs)
			}
			if ev, ok := findEvent(evs, tc.host); !ok || ev.Verdict != netproxy.Allow || ev.Rule != "pkg.test" {
				t.Fatalf("no allow decision for %s: %+v", tc.host, evs)
			}
			// The same client for a name not in the list: refused and reported.
			other := strings.ReplaceAll(tc.script, "pkg.test", "evil.test")
			res, evs = domainsRun(t, e, tn, []string{"pkg.test"}, nil, other)
			if strings.Contains(res.Stdout, tc.want) || res.Code == 0 && !strings.HasPrefix(res.Stdout, "BLOCKED:") {
				t.Fatalf("refused name reached: exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
			}
			ev, ok := findEvent(evs, "evil.test")
			if !ok || ev.Verdict != netproxy.Deny || ev.Reason != netproxy.ReasonAllowlist {
				t.Fatalf("refusal not reported: %+v", evs)
			}
			for _, d := range tn.Dialled() {
				if strings.HasPrefix(d, "198.51.100.12:") {
					t.Fatalf("the proxy dialled the refused host: %v", tn.Dialled())
				}
			}
		})
	}
}
