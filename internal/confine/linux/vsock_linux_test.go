package linux

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// AF_VSOCK is not namespaced: a network namespace with no interface still
// reaches the hypervisor (host CID 2). Every mode with a namespace of its
// own refuses the family; the unconfined control creates the socket and
// reaches the host's vsock transport.
func TestVsockRefused(t *testing.T) {
	e := inittest.NewEnv(t)
	if err := os.WriteFile(e.Root+"/attack.py", []byte(domaintest.AttackPy), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", e.Root+"/attack.py", "vsock").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "OK:") {
		t.Fatalf("control (unconfined) could not create a vsock socket, the attack proves nothing: %v %s", err, out)
	}
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	for _, mode := range []policy.NetworkMode{policy.NetDeny, policy.NetLoopback, policy.NetDomains} {
		t.Run(mode.String(), func(t *testing.T) {
			p := e.Policy(mode)
			if mode == policy.NetDomains {
				p.Network.Domains = []string{"pkg.test"}
			}
			c, err := prov.Confine(confine.Request{Argv: []string{"python3", e.Root + "/attack.py", "vsock"}, Policy: p, Env: e.Vars(),
				Net: &confine.NetOptions{Resolver: &domaintest.NoUpstream{}, Dial: (&domaintest.NoUpstream{}).Dial}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := inittest.Run(c, nil)
			if err != nil {
				t.Fatalf("run: %v %s", err, res.Stderr)
			}
			if !strings.HasPrefix(res.Stdout, "BLOCKED:") {
				t.Fatalf("vsock not refused under %s: %s %s", mode, res.Stdout, res.Stderr)
			}
		})
	}
}
