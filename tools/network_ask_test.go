package tools

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// netGate approves every command and answers network questions with net.
type netGate struct {
	mu    sync.Mutex
	net   Decision
	asked []string
}

func (g *netGate) Ask(_ context.Context, q Question) (Answer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(q.Permissions) == 1 && strings.HasPrefix(q.Permissions[0], "network:") && q.Permissions[0] != "network:*" {
		g.asked = append(g.asked, q.Permissions[0])
		return Answer{Decision: g.net}, nil
	}
	return Answer{Decision: ApproveOnce}, nil
}

// Under domains with asking on, an unlisted host is put to the person
// once per session; a decline blocks it (declined-by-user), an approval
// lets the proxy go on to its own checks (here: localhost resolves to
// loopback, which is still refused as private — nothing leaves the host).
func TestNetworkAskThroughTheGate(t *testing.T) {
	for _, tc := range []struct {
		answer Decision
		reason string
		rule   string
	}{
		{Decline, "declined-by-user", ""},
		{ApproveSession, "private-address", "approved by the user"},
	} {
		t.Run(tc.answer.String(), func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			sb, err := ringfence.New(ringfence.Config{Root: root, Backend: "linux", Defaults: policy.Defaults{
				Mode: policy.WorkspaceWrite, Baseline: policy.Read,
				Network: policy.Network{Mode: policy.NetDomains, Domains: []string{"pkg.test"}, Ask: true},
			}})
			testenv.Need(t, "the linux backend", err)
			defer sb.Close()
			g := &netGate{net: tc.answer}
			set := New(sb, Options{Gate: g})
			cmd := `curl -sS --max-time 10 --noproxy '' -x http://127.0.0.1:3128 http://localhost/`
			for range 2 {
				r := set.Call(context.Background(), "run_command", raw(t, obj_{"command": cmd}))
				res, ok := r.Data.(*ringfence.ExecResult)
				if !ok || len(res.Network) != 1 {
					t.Fatalf("result %+v", r)
				}
				d := res.Network[0]
				if d.Host != "localhost" || d.Verdict != "deny" || d.Reason != tc.reason || d.Rule != tc.rule {
					t.Fatalf("decision %+v", d)
				}
				if strings.Contains(r.Audit.Approval, "allow-all") || res.Enforcement.Network != "full" {
					t.Fatalf("approving the command widened the domains network: %s %+v", r.Audit.Approval, res.Enforcement)
				}
				if len(r.Audit.Network) != 1 {
					t.Fatalf("audit %+v", r.Audit)
				}
			}
			if len(g.asked) != 1 || g.asked[0] != "network:localhost:80" {
				t.Fatalf("asked %v (want one question, remembered for the session)", g.asked)
			}
		})
	}
}
