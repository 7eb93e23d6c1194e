package landlock

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// TestDomainsTestInternet runs the backend inside the test internet's
// egress namespace, which reaches the test hosts directly (as a host
// without a network namespace of its own reaches the internet): curl over
// HTTPS through the proxy reaches an allowed name, another name gets the
// proxy's 403, and a direct connect to a test host's address — which the
// unconfined control makes — is refused.
func TestDomainsTestInternet(t *testing.T) {
	e := inittest.NewEnv(t)
	tn := domaintest.Shared(t)
	probe := e.Root + "/probe.py"
	if err := os.WriteFile(probe, []byte(probePy), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := New(Options{})
	testenv.Need(t, "landlock backend", prov.Available())
	// run confines and runs argv from a thread in the egress namespace (the
	// init and its listeners are made there); no t.Fatal inside it.
	run := func(argv []string) (inittest.Result, []netproxy.Event, error) {
		var res inittest.Result
		var evs []netproxy.Event
		err := domaintest.InNS(tn.Egress(), func() error {
			p := e.Policy(policy.NetDomains)
			p.Network.Domains = []string{"pkg.test"}
			c, err := prov.Confine(confine.Request{Argv: argv, Policy: p,
				Env: append(e.Vars(), domaintest.CAVars(tn.CAFile)...), Net: &confine.NetOptions{Resolver: tn, Dial: tn.Dial}})
			if err != nil {
				return err
			}
			if res, err = inittest.Run(c, nil); err != nil {
				return fmt.Errorf("run: %w", err)
			}
			evs = c.NetEvents().Events
			return nil
		})
		return res, evs, err
	}
	control := func(argv ...string) string {
		var out []byte
		domaintest.InNS(tn.Egress(), func() error {
			out, _ = exec.Command(argv[0], argv[1:]...).Output()
			return nil
		})
		return strings.TrimSpace(string(out))
	}

	res, evs, err := run([]string{"curl", "-sS", "--max-time", "10", "https://pkg.test/"})
	if err != nil || res.Stdout != "hello from pkg.test" || len(evs) != 1 || evs[0].Via != "connect" || evs[0].Verdict != netproxy.Allow {
		t.Fatalf("curl over HTTPS through the proxy: %v exit %d %q %s %+v", err, res.Code, res.Stdout, res.Stderr, evs)
	}
	res, evs, err = run([]string{"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", "https://evil.test/"})
	if err != nil || len(evs) != 1 || evs[0].Verdict != netproxy.Deny || evs[0].Reason != netproxy.ReasonAllowlist || !strings.Contains(res.Stdout+res.Stderr, "403") {
		t.Fatalf("evil.test not refused by the proxy: %v %q %s %+v", err, res.Stdout, res.Stderr, evs)
	}
	for _, target := range [][2]string{{"198.51.100.10", "80"}, {"198.51.100.12", "9418"}, {"198.51.100.12", "22"}} {
		args := []string{"python3", probe, "connect", target[0], target[1]}
		if out := control(args...); !strings.HasPrefix(out, "OK:") {
			t.Fatalf("control (unconfined, egress namespace) could not reach %s:%s, the attack proves nothing: %s", target[0], target[1], out)
		}
		res, _, err := run(args)
		if err != nil || strings.TrimSpace(res.Stdout) != "ERR:EACCES" {
			t.Fatalf("direct connect to %s:%s not refused: %v %q %s", target[0], target[1], err, res.Stdout, res.Stderr)
		}
	}
	for _, d := range tn.Dialled() {
		if !strings.HasPrefix(d, "198.51.100.10:") {
			t.Fatalf("the proxy dialled %s", d)
		}
	}
}
