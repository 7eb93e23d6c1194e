package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// A listing shows a denied directory only when a narrower layer inside it
// grants read (the carve-out itself is listable); a denied directory
// without one and a denied file are never shown. (readable asks policy.Tree, as the walks do.)
func TestReadDirCarveOut(t *testing.T) {
	f := newFixture(t)
	writeHost(t, filepath.Join(f.root, "secret", "pub", "notes"), "ok\n")
	writeHost(t, filepath.Join(f.root, "hidden", "x"), "no\n")
	writeHost(t, filepath.Join(f.root, "deniedfile"), "no\n")
	pol := policyFor(f.root, policy.WorkspaceWrite)
	pol.Layers = append(pol.Layers,
		policy.Layer{Path: f.root + "/secret/pub", Access: policy.Read, Origin: policy.FromDeployment},
		policy.Layer{Path: f.root + "/hidden", Access: policy.Deny, Origin: policy.FromDeployment},
		policy.Layer{Path: f.root + "/deniedfile", Access: policy.Deny, Origin: policy.FromDeployment})
	policy.SortLayers(pol.Layers)
	w := open(t, pol, false)
	names := func(path string) string {
		l, err := w.ReadDir(path, 100)
		if err != nil {
			t.Fatalf("ReadDir(%s): %v", path, err)
		}
		var got []string
		for _, e := range l.Entries {
			got = append(got, e.Name)
		}
		return strings.Join(got, " ")
	}
	if got := names(""); !strings.Contains(got, "secret") || strings.Contains(got, "hidden") || strings.Contains(got, "deniedfile") {
		t.Errorf("root listing %q: want secret (it holds a readable carve-out), not hidden nor deniedfile", got)
	}
	if got := names("secret/pub"); got != "notes" {
		t.Errorf("carve-out listing %q, want notes", got)
	}
}
