package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The domains network's suite (package domaintest), run against this
// backend; the bwrap backend runs the same tests.

func TestDomainsRealClients(t *testing.T)   { domaintest.RealClients(t, New(Options{})) }
func TestDomainsAttacks(t *testing.T)       { domaintest.Attacks(t, New(Options{})) }
func TestDomainsRebinding(t *testing.T)     { domaintest.Rebinding(t, New(Options{})) }
func TestDomainsGoModDownload(t *testing.T) { domaintest.GoModDownload(t, New(Options{})) }
func TestDomainsNpmInstall(t *testing.T)    { domaintest.NpmInstall(t, New(Options{})) }
func TestDomainsNoUpstream(t *testing.T)    { domaintest.NoUpstreamAttacks(t, New(Options{})) }

// TestDomainsBenchmark runs only under bench/network.sh.
func TestDomainsBenchmark(t *testing.T) { domaintest.Benchmark(t, New(Options{})) }

func TestDomainsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestDomainsNoUpstream|TestVsockRefused)$")
}
