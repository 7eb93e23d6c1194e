package landlock

import (
	"fmt"
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/policy"
)

// devFiles are the host devices a command may write without a /dev of its
// own: sinks and terminals.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// Plan is the pure part of Confine.
type Plan struct {
	Landlock initproc.Landlock
	Seccomp  initproc.Seccomp
}

// NewPlan translates the view plan of p (viewplan.New) into Landlock rules
// and seccomp options that enforce it without any namespace. Landlock
// grants are unions over ancestors and cannot subtract, so every
// carve-out the guard does not hold (a denied path in a writable root, an
// explicit read-only one when there is no root to guard, a denied path in
// a readable one) is expressed by granting the root per sibling subtree
// around it (see initproc.ExpandCarved).
func NewPlan(p *policy.Policy) Plan { return newPlan(viewplan.New(p)) }

// newPlan is NewPlan from the view plan already built: Confine builds it
// once and hands it to newPlan, keepExisting and enforce (three builds a
// run were ~8% of the CLI's CPU, issue 16).
func newPlan(vp *viewplan.Plan) Plan {
	p := vp.Policy
	var ll initproc.Landlock
	ll.Required = true
	ll.Write = append(append(ll.Write, devFiles...), vp.Roots...)
	readOnly, denied := vp.Explicit()
	ll.Carved = append(denied, vp.DeniedInside(denied)...)
	if p.Baseline == policy.Read {
		ll.Read = []string{"/"}
	}
	for _, s := range vp.Hidden {
		ll.ReadCarved = append(ll.ReadCarved, s.Path)
	}
	for _, s := range vp.Reopened {
		ll.Read = append(ll.Read, s.Path) // reopened, or granted under an allow-list
	}
	ll.UnixSockets = p.UnixSockets
	ll.RestrictTCP = p.Network.Mode != policy.NetAllowAll
	sc := initproc.Seccomp{
		DenyUnixConnect: true,
		AllowUnix:       append(append([]string{}, vp.Roots...), p.UnixSockets...),
		DenyInet:        p.Network.Mode != policy.NetAllowAll,
		// No read-only mount view holds metadata here: chmod, chown,
		// utimes and xattr changes are performed by the supervisor only
		// inside the writable roots, outside the read-only carve-outs
		// (the generated protected paths stay writable, as for writes).
		GuardMeta:    true,
		MetaWritable: vp.Roots,
		MetaCarved:   ll.Carved,
		PeerCheck:    true,
		UnixHost:     p.UnixSockets,
		// No network namespace: the host's abstract sockets share ours.
		PeerCheckAbstract: true,
	}
	if len(vp.Roots) > 0 {
		// Protected paths are held by the seccomp guard instead: by name
		// at every depth, and the generated ones no name rule covers (an
		// extra subpath such as secrets/key) by absolute path. The
		// supervisor acts outside the command's Landlock domain before
		// ABI 8, so each of its acting threads takes that domain first.
		sc.NameRoots, sc.Names, sc.ConfineGuard = vp.Roots, p.Names, true
		sc.Protected, _ = vp.Protected()
		// Read-only paths too, instead of granting their root per entry
		// (which forbade new files beside them): unlink and rmdir are
		// supervised as well, and their ancestors cannot be renamed away.
		if len(readOnly) > 0 {
			sc.Protected = append(sc.Protected, readOnly...)
			sc.GuardRemove = true
		}
	} else {
		ll.Carved = append(ll.Carved, readOnly...)
	}
	return Plan{Landlock: ll, Seccomp: sc}
}

// KeepExisting adds the generated protected paths that exist now (the
// workspace's own .git/hooks, .git/config, .bashrc, …) to the guard's
// absolute list with removal supervised, as the linux backend binds them
// read-only: they can then be neither changed, nor deleted, nor moved
// away with their directory. Missing ones stay with the name guard, so git
// can still make them from nothing. exists is injected for tests.
func KeepExisting(p *policy.Policy, plan Plan, exists func(string) bool) Plan {
	if len(plan.Seccomp.NameRoots) == 0 {
		return plan
	}
	return keepExisting(viewplan.New(p), plan, exists)
}

// keepExisting is KeepExisting from the view plan of the policy.
func keepExisting(vp *viewplan.Plan, plan Plan, exists func(string) bool) Plan {
	if len(plan.Seccomp.NameRoots) == 0 {
		return plan
	}
	_, byName := vp.Protected()
	for _, path := range byName {
		if exists(path) {
			plan.Seccomp.Protected = append(plan.Seccomp.Protected, path)
			plan.Seccomp.GuardRemove = true
		}
	}
	return plan
}

// unprotected are the protected subpaths this backend leaves writable:
// none when the guard runs (a writable root), which holds each by name or
// by absolute path.
func unprotected(vp *viewplan.Plan, plan Plan) []string {
	carved := map[string]bool{}
	for _, c := range plan.Landlock.Carved {
		carved[c] = true
	}
	for _, c := range plan.Seccomp.Protected {
		carved[c] = true
	}
	var out []string
	for _, c := range vp.CarveOuts {
		if !carved[c.Path] && (len(plan.Seccomp.NameRoots) == 0 || !vp.ByName(c.Path)) {
			out = append(out, relTo(vp.Policy.Root, c.Path))
		}
	}
	return out
}

func relTo(root, path string) string {
	if path == root {
		return "."
	}
	if len(path) > len(root) && path[:len(root)] == root && path[len(root)] == '/' {
		return path[len(root)+1:]
	}
	return path
}

// Enforce states what the plan holds the command to, on a kernel with
// Landlock ABI abi. Everything the policy asks is refused by the kernel,
// but less precisely than with a mount namespace, and the reasons say how.
func Enforce(p *policy.Policy, plan Plan, abi int) confine.Enforcement {
	return enforce(viewplan.New(p), plan, abi)
}

// enforce is Enforce from the view plan of the policy.
func enforce(vp *viewplan.Plan, plan Plan, abi int) confine.Enforcement {
	p := vp.Policy
	e := confine.Enforcement{Files: confine.FilesPartial, Network: confine.NetFull}
	e.Reasons = append(e.Reasons, outOfReach(p, abi))
	e.Reasons = append(e.Reasons, "no mount namespace: Landlock alone confines files; /proc, /sys and /tmp are the host's")
	if len(plan.Seccomp.NameRoots) > 0 {
		e.Reasons = append(e.Reasons, "protected and read-only paths are held by the seccomp guard, not by Landlock "+
			"(creation, write, truncation, link, rename and removal are performed by the supervisor); "+
			"a protected name made during the run can be deleted")
	}
	if left := unprotected(vp, plan); len(left) > 0 {
		e.Reasons = append(e.Reasons, "protected paths stay writable (Landlock cannot take write away inside a writable root without "+
			"forbidding every new file beside them): "+summarize(left))
	}
	if len(plan.Landlock.Carved) > 0 {
		e.Reasons = append(e.Reasons, "denied paths inside a writable root are kept by granting the root per entry: "+
			"nothing can be created, renamed or removed directly in a directory that holds one")
	}
	if len(plan.Landlock.ReadCarved) > 0 {
		e.Reasons = append(e.Reasons, "names beneath a directory on the way to a denied path stay listable (the denied directory's own included); contents are not readable")
	}
	switch p.Network.Mode {
	case policy.NetAllowAll:
		e.Network = confine.NetNone
	case policy.NetLoopback:
		e.Reasons = append(e.Reasons, "loopback cannot be told from the host's network without a network namespace: every IP socket is refused")
	case policy.NetDomains:
		e.Network = confine.NetPartial
		e.Reasons = append(e.Reasons, domainsReason(abi))
	}
	// Host abstract unix sockets share the sandbox's network namespace
	// here. The init's supervisor, which connects on the command's behalf
	// outside its Landlock scope, refuses a listener that is not the
	// sandbox's own (Seccomp.PeerCheckAbstract), so they hold at any ABI.
	return e
}

// summarize lists paths for a reason, bounded so a long policy cannot make
// the result unreadable.
func summarize(paths []string) string {
	const show = 8
	if len(paths) <= show {
		return strings.Join(paths, ", ")
	}
	return strings.Join(paths[:show], ", ") + fmt.Sprintf(" and %d more", len(paths)-show)
}
