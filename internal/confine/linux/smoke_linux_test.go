package linux

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// testPolicy is a workspace-write policy over a fresh root, with the
// protected subpaths layered read-only the way Resolve layers them.
func testPolicy(t *testing.T, root string, protected ...string) *policy.Policy {
	t.Helper()
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read}
	p.Layers = append(p.Layers, policy.Layer{Path: root, Access: policy.Write, Origin: policy.FromMode})
	for _, rel := range protected {
		p.Layers = append(p.Layers, policy.Layer{Path: root + "/" + rel, Access: policy.Read, Origin: policy.FromProtected})
	}
	policy.SortLayers(p.Layers)
	return p
}

func confineRun(t *testing.T, p *policy.Policy, argv ...string) inittest.Result {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: argv, Policy: p, Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func TestSmoke(t *testing.T) {
	root := t.TempDir()
	res := confineRun(t, testPolicy(t, root), "/bin/sh", "-c", "echo hi; echo x > f; cat f; id -u; pwd; cat /proc/self/status | grep -E 'CapEff|NoNewPrivs|Seccomp:'")
	t.Logf("code %d status %+v\nstdout:\n%s\nstderr:\n%s", res.Code, res.Status, res.Stdout, res.Stderr)
	if res.Code != 0 || !strings.Contains(res.Stdout, "hi") {
		t.Fatal("smoke failed")
	}
}
