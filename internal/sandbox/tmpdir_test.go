package sandbox

import (
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// A TMPDIR the user set (here under a fake home) neither moves the private
// temp dir out of /tmp nor shows up in what the model is told.
func TestUserTMPDIRNeitherBreaksNorLeaks(t *testing.T) {
	userTmp := t.TempDir() + "/home/me/tmp"
	if err := os.MkdirAll(userTmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", userTmp)
	l, err := New(Config{Root: t.TempDir(), Backend: "auto",
		Defaults: policy.Defaults{Mode: policy.WorkspaceWrite, Baseline: policy.Read}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if !strings.HasPrefix(l.tempDir, "/tmp/ringfence-tmp-") {
		t.Fatalf("private temp dir %q is not under /tmp", l.tempDir)
	}
	pol, err := l.Policy(policy.Request{})
	if err != nil {
		t.Fatal(err)
	}
	nc := l.NarrationContext(pol)
	if got := strings.Join(nc.WriteRoots, " "); strings.Contains(got, userTmp) || !strings.Contains(got, "/tmp") {
		t.Fatalf("writable roots as the model sees them: %q", got)
	}
	// modelPath of a temp dir outside /tmp names it by its variable.
	l2 := &Local{cfg: Config{MountPath: "/workspace"}, tempDir: "/home/me/tmp/ringfence-tmp-1"}
	l2.defaults.Root = "/srv/ws"
	if got := l2.modelPath(l2.tempDir); got != "$TMPDIR" {
		t.Fatalf("modelPath(%q) = %q", l2.tempDir, got)
	}
}

// The scrubbing of reasons stops at path boundaries: a sibling of the
// root keeps its own name.
func TestScrubHostPathsBoundary(t *testing.T) {
	l := &Local{cfg: Config{MountPath: "/workspace"}, tempDir: "/tmp/ringfence-tmp-1"}
	l.defaults.Root = "/tmp/ws"
	if got := l.scrubHostPaths("/tmp/ws/a and /tmp/ws-backup and /tmp/ringfence-tmp-12"); got != "/workspace/a and /tmp/ws-backup and /tmp/ringfence-tmp-12" {
		t.Errorf("scrubbed %q", got)
	}
}
