package linux

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// A deployment that grants write to a parent of the workspace (home, a
// projects directory) makes the workspace writable without a root of its
// own: Resolve drops the mode's grant as changing nothing. Shown at its
// mount path, the workspace must still be writable there — the broader
// root is not moved with it, so Landlock had no rule for /workspace and
// refused every write — and its protected names must still be guarded
// there (.git/hooks, .git/config).
func TestMountPathUnderWritableParent(t *testing.T) {
	e := inittest.NewEnv(t)
	p, err := policy.Resolve(policy.Request{}, policy.Defaults{Mode: policy.WorkspaceWrite, Root: e.Root,
		Baseline: policy.Read, Entries: []policy.Entry{{Path: filepath.Dir(e.Root), Access: policy.Write}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.Layers {
		if l.Path == e.Root {
			t.Fatalf("the workspace has a layer of its own (%+v): the case under test is gone", l)
		}
	}
	res := runReq(t, confine.Request{Argv: sh(`echo new > /workspace/new || exit 3
		! touch /workspace/.git/hooks/x || exit 4
		! echo x >> /workspace/.git/config || exit 5
		! touch ` + e.Root + `/x || exit 6`), Dir: e.Root, Policy: p, MountPath: "/workspace"})
	if res.Code != 0 {
		t.Fatalf("exit %d (3: the workspace is not writable at its mount path; 4, 5: a protected name is; 6: the real path is): %s",
			res.Code, res.Stderr)
	}
	if b, err := os.ReadFile(e.Root + "/new"); err != nil || string(b) != "new\n" {
		t.Fatalf("a write through the mount path did not reach the workspace: %q %v", b, err)
	}
	for _, f := range []string{e.Root + "/.git/hooks/x", e.Root + "/x"} {
		if _, err := os.Lstat(f); err == nil {
			t.Fatalf("%s was created", f)
		}
	}
	// Control: the same policy without the mount path writes at the
	// real path, and the name guard refuses there too.
	res = runReq(t, confine.Request{Argv: sh(`echo new > new2 && ! touch .git/hooks/x`), Dir: e.Root, Policy: p})
	if res.Code != 0 {
		t.Fatalf("control at the real path: exit %d: %s", res.Code, res.Stderr)
	}
}
