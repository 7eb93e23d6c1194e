//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// netClients are real programs failing to reach the network the way they
// do for an agent: a name lookup (every one of them) and a connection to an
// address beyond loopback.
func netClients(t *testing.T) map[string][]string {
	// The Go client is this binary, copied where every backend sees it
	// (a test binary under /tmp is hidden by the sandbox's private /tmp).
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	self := hostDir(t) + "/goclient"
	if err := os.WriteFile(self, b, 0o755); err != nil {
		t.Fatal(err)
	}
	clients := map[string][]string{
		"go":      {self},
		"python3": {"python3", "-c", "import urllib.request; urllib.request.urlopen('http://%s/', timeout=10)"},
		"node":    {"node", "-e", "require('http').get('http://%s/').on('error', e => { console.error(e.message); process.exit(1) })"},
		"git":     {"git", "ls-remote", "http://%s/repo.git"},
	}
	for name, argv := range clients {
		if name == "go" {
			continue
		}
		if _, err := exec.LookPath(argv[0]); err != nil {
			testenv.Need(t, name, err)
		}
	}
	return clients
}

func clientCmd(argv []string, target string) ([]string, map[string]string) {
	if len(argv) == 1 { // the Go client: this binary, told the URL
		return argv, map[string]string{dialEnv: "http://" + target + "/"}
	}
	out := append([]string{}, argv...)
	out[len(out)-1] = strings.ReplaceAll(out[len(out)-1], "%s", target)
	return out, map[string]string{"HOME": "/tmp"}
}

// A lookup or a connection the network mode refused is denied, with a
// network violation and a narration naming the mode; under allow-all the
// same failure is the command's own.
func TestNetworkRefusalsNamed(t *testing.T) {
	clients := netClients(t)
	for _, backend := range []string{"linux", "bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			for _, tc := range []struct {
				mode   policy.NetworkMode
				target string
				denied bool
			}{
				{policy.NetDeny, "example.com", true},
				{policy.NetDeny, "1.1.1.1", true},
				{policy.NetLoopback, "example.com", true},
				{policy.NetLoopback, "1.1.1.1", true},
				// Nothing listens on loopback port 9: the command's own failure.
				{policy.NetLoopback, "127.0.0.1:9", false},
			} {
				d := policy.AgentDefaults()
				d.Network.Mode = tc.mode
				l := newLocalOn(t, backend, d)
				if backend == "landlock" && tc.target == "127.0.0.1:9" {
					continue // Landlock refuses every IP socket under loopback: a known gap
				}
				for name, argv := range clients {
					argv, env := clientCmd(argv, tc.target)
					res, err := l.Exec(context.Background(), argv, ExecOptions{Env: env, Timeout: 30 * time.Second})
					if err != nil {
						t.Fatal(err)
					}
					ok := res.Kind == KindDenied && res.Outcome.Network == tc.mode.String() &&
						strings.Contains(res.Narration, "network mode "+tc.mode.String()) && hasNetViolation(res.Violations)
					if tc.denied != ok || (!tc.denied && res.Kind != KindCommandFailure) {
						t.Errorf("%s %s %s: kind %s outcome %+v violations %+v\nstderr: %s\nnarration: %s",
							name, tc.mode, tc.target, res.Kind, res.Outcome, res.Violations, lastLine(res.Stderr), res.Narration)
					}
				}
			}
		})
	}
}

// The control: under allow-all a failed lookup (a reserved name that
// never resolves) is never the sandbox's refusal.
func TestNetworkAllowAllNeverDenied(t *testing.T) {
	clients := netClients(t)
	d := policy.AgentDefaults()
	d.Network.Mode = policy.NetAllowAll
	l := newLocalOn(t, "linux", d)
	for name, argv := range clients {
		argv, env := clientCmd(argv, "ringfence-test.invalid")
		res, err := l.Exec(context.Background(), argv, ExecOptions{Env: env, Timeout: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind != KindCommandFailure || hasNetViolation(res.Violations) {
			t.Errorf("%s: kind %s violations %+v (stderr %s)", name, res.Kind, res.Violations, lastLine(res.Stderr))
		}
	}
}

func newLocalOn(t *testing.T, backend string, d policy.Defaults) *Local {
	t.Helper()
	return newLocal(t, Config{Backend: backend, Defaults: d})
}

func hasNetViolation(vs []outcome.Violation) bool {
	for _, v := range vs {
		if v.Reason == outcome.ReasonNetworkDenied {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// The same, and the agent profile and deadlines, for a person without root.
func TestFacadeNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestNetworkRefusalsNamed|TestNetworkAllowAllNeverDenied|TestZeroConfigIsAgentProfile|TestContextDeadline|TestKillAfterDefault)$")
}
