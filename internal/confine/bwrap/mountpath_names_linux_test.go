package bwrap_test

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// Names protected at any depth (a nested repository's hooks) are held by
// the shim's guard under every writable root, as the command sees it:
// under a mount path that is the mount path, not the workspace's real
// path (which the view does not even show). Control: the same write at
// the real path, without a mount path, is refused too.
func TestMountPathProtectedNames(t *testing.T) {
	p := provider(t)
	base, err := os.MkdirTemp("/var/tmp", "ringfence-bwrap-names-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root := base + "/ws"
	if err := os.MkdirAll(root+"/sub/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: root, Access: policy.Write}}}
	for _, c := range []struct{ mount, at string }{{"", root}, {"/workspace", "/workspace"}} {
		r := runReq(t, p, confine.Request{Policy: pol, Dir: root, MountPath: c.mount,
			Argv: shc(`echo ok > ` + c.at + `/sub/f; ! echo evil > ` + c.at + `/sub/.git/hooks/pre-commit`)})
		if r.code != 0 {
			t.Fatalf("mount path %q: exit %d: %s %s", c.mount, r.code, r.stdout, r.stderr)
		}
		if _, err := os.Lstat(root + "/sub/.git/hooks/pre-commit"); err == nil {
			t.Fatalf("mount path %q: a nested repository's hook was written", c.mount)
		}
	}
}
