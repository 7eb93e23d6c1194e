package bwrap_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The domains network's suite (package domaintest), the same tests the
// linux backend runs: the exec shim hosts the in-namespace side, the
// supervisor half is shared.

func TestDomainsRealClients(t *testing.T)   { domaintest.RealClients(t, bwrap.New(bwrap.Options{})) }
func TestDomainsAttacks(t *testing.T)       { domaintest.Attacks(t, bwrap.New(bwrap.Options{})) }
func TestDomainsRebinding(t *testing.T)     { domaintest.Rebinding(t, bwrap.New(bwrap.Options{})) }
func TestDomainsGoModDownload(t *testing.T) { domaintest.GoModDownload(t, bwrap.New(bwrap.Options{})) }
func TestDomainsNpmInstall(t *testing.T)    { domaintest.NpmInstall(t, bwrap.New(bwrap.Options{})) }

// TestDomainsNoUpstream runs the no-upstream attacks as root; as another
// user (TestDomainsNonRoot reruns it as uid 65534) the domains network is
// refused with the reason, never started without its listeners.
func TestDomainsNoUpstream(t *testing.T) {
	p := bwrap.New(bwrap.Options{})
	if os.Getuid() == 0 {
		domaintest.NoUpstreamAttacks(t, p)
		return
	}
	testenv.Need(t, "bwrap", p.Available())
	e := inittest.NewEnv(t)
	pol := e.Policy(policy.NetDomains)
	pol.Network.Domains = []string{"pkg.test"}
	_, err := p.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: pol, Env: e.Vars()})
	if !errors.Is(err, policy.ErrUnavailable) || !strings.Contains(err.Error(), "needs ringfence run as root") {
		t.Fatalf("domains as uid %d: got %v, want a refusal with the reason", os.Getuid(), err)
	}
}

// Without the shim's unix-socket supervision (old kernels, NoSupervise)
// the shim still hosts the network: the no-upstream attacks hold there
// too.
func TestDomainsNoUpstreamUnsupervised(t *testing.T) {
	domaintest.NoUpstreamAttacks(t, bwrap.New(bwrap.Options{NoSupervise: true}))
}

// TestDomainsBenchmark runs only under bench/network.sh.
func TestDomainsBenchmark(t *testing.T) { domaintest.Benchmark(t, bwrap.New(bwrap.Options{})) }

func TestDomainsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestDomainsNoUpstream)$")
}
