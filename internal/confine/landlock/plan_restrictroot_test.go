package landlock

import (
	"slices"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// A request that makes the workspace read-only for one call, with a
// deployment entry of the root's depth elsewhere: Resolve used to keep
// the mode's write layer at the root beside the request's read layer (not
// adjacent once sorted), and this backend, which cannot subtract, granted
// the root write in Landlock and left the read-only root to the seccomp
// guard. The root must not be granted write at all.
func TestReadOnlyRequestGrantsNoLandlockWrite(t *testing.T) {
	d := policy.Defaults{Mode: policy.WorkspaceWrite, Root: "/home/u", Baseline: policy.Read,
		Entries: []policy.Entry{{Path: "/etc/x", Access: policy.Deny}}}
	p, err := policy.Resolve(policy.Request{Entries: []policy.Entry{{Path: "/home/u", Access: policy.Read}}}, d)
	if err != nil {
		t.Fatal(err)
	}
	plan := NewPlan(p)
	if slices.Contains(plan.Landlock.Write, "/home/u") || slices.Contains(plan.Seccomp.NameRoots, "/home/u") {
		t.Fatalf("a read-only root is granted write: landlock %v, guard roots %v", plan.Landlock.Write, plan.Seccomp.NameRoots)
	}
	// Control: without the restriction the root is granted.
	if p, err = policy.Resolve(policy.Request{}, d); err != nil || !slices.Contains(NewPlan(p).Landlock.Write, "/home/u") {
		t.Fatalf("control: %v, write %v", err, NewPlan(p).Landlock.Write)
	}
}
