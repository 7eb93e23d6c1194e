package plantest

import (
	"math/rand"

	"github.com/ringfence/ringfence/policy"
)

// AdversarialPaths are the shapes Policy does not draw: "/" itself,
// trailing slashes, dot segments and doubled slashes (Resolve must clean
// them), the temp dir, home, and paths equal to a root.
var AdversarialPaths = []string{"/", "/w", "/w/", "/w/./a", "/w//a/", "/w/a/../b", "/w/a", "/w/a/b",
	"/w/a/b/c", "/w/.git", "/w/.git/hooks", "/w/.git/hooks/", "/tmp", "/tmp/w", "/tmp/rt", "/home",
	"/home/u", "/home/u/.ssh", "/w/.bashrc", "/w/a/.git/config", "/etc", "/w/../etc"}

// Resolved draws a policy the way a deployment and a request make one:
// through policy.Resolve, with entries, standing restrictions and
// request restrictions at adversarial paths (deny inside read inside
// write inside deny, a layer at "/", an entry equal to the root or the
// temp dir). An error is Resolve refusing the draw. Policy draws only
// well-behaved layer lists; the plan's contract is whatever Resolve makes.
func Resolved(seed int64) (*policy.Policy, error) {
	r := rand.New(rand.NewSource(seed))
	pick := func() string { return AdversarialPaths[r.Intn(len(AdversarialPaths))] }
	entries := func(n int, write bool) []policy.Entry {
		var es []policy.Entry
		for ; n > 0; n-- {
			a := policy.Access(r.Intn(2))
			if write {
				a = policy.Access(r.Intn(3))
			}
			es = append(es, policy.Entry{Path: pick(), Access: a})
		}
		return es
	}
	roots := []string{"/w", "/w/", "/tmp/w", "/home/u", "/"}
	d := policy.Defaults{Mode: policy.Mode(r.Intn(2)), Root: roots[r.Intn(len(roots))], Baseline: policy.Read,
		Entries: entries(r.Intn(6), true), Restrictions: entries(r.Intn(3), false)}
	if r.Intn(3) == 0 {
		d.Baseline = policy.Deny
	}
	if r.Intn(2) == 0 {
		d.TempDir = "/tmp/rt"
	}
	if r.Intn(3) == 0 {
		d.ExtraProtected = []string{"a/b", "secrets/key", "a"}
	}
	d.ProtectGit = []policy.GitProtection{policy.GitDefault, policy.GitReadOnly, policy.GitWritable}[r.Intn(3)]
	req := policy.Request{Entries: entries(r.Intn(3), false)}
	return policy.Resolve(req, d)
}
