//go:build linux

package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// Under --network domains the landlock backend is partial: a client that
// honours the proxy variables meets the proxy (a refused name is the
// proxy's decision, narrated with the allowed domains); one that ignores
// them is refused at its connect, narrated as such. Nothing here needs a
// network: both are refused before anything is resolved.
func TestLandlockDomainsNarrated(t *testing.T) {
	for _, tool := range []string{"python3", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Need(t, tool, err)
		}
	}
	d := policy.AgentDefaults()
	d.Network.Mode = policy.NetDomains
	d.Network.Domains = []string{"pkg.test"}
	l := newLocalOn(t, "landlock", d)
	run := func(argv ...string) ExecResult {
		res, err := l.Exec(context.Background(), argv, ExecOptions{Env: map[string]string{"HOME": "/tmp"}, Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Enforcement.Network != "partial" {
			t.Fatalf("network enforcement %q, want partial", res.Enforcement.Network)
		}
		return *res
	}
	// Python's urllib honours http_proxy: the proxy refuses evil.test.
	res := run("python3", "-c", "import urllib.request; urllib.request.urlopen('http://evil.test/', timeout=10)")
	if res.Kind != KindDenied || len(res.Network) != 1 || res.Network[0].Verdict != "deny" || res.Network[0].Host != "evil.test" ||
		!strings.Contains(res.Narration, "blocked a connection to evil.test:80") || !strings.Contains(res.Narration, "pkg.test") {
		t.Fatalf("through the proxy: kind %s decisions %+v narration %q", res.Kind, res.Network, res.Narration)
	}
	if len(res.Violations) != 1 || res.Violations[0].Reason != "network-blocked" {
		t.Fatalf("through the proxy: violations %+v", res.Violations)
	}
	// Node's http ignores the variables: a direct connect, refused.
	res = run("node", "-e", "require('http').get('http://198.51.100.10/').on('error', e => { console.error(e.message); process.exit(1) })")
	if res.Kind != KindDenied || len(res.Network) != 0 || !hasNetViolation(res.Violations) ||
		!strings.Contains(res.Narration, "ignoring them") || !strings.Contains(res.Narration, "HTTP_PROXY") {
		t.Fatalf("direct: kind %s violations %+v narration %q (stderr %s)", res.Kind, res.Violations, res.Narration, res.Stderr)
	}
}

func TestLandlockDomainsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestLandlockDomainsNarrated$")
}
