package landlock

import (
	"fmt"
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
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

// NewPlan computes the Landlock rules and seccomp options that enforce p
// without any namespace. Landlock grants are unions over ancestors and
// cannot subtract, so every carve-out (a protected or read-only path in a
// writable root, a denied path in a readable one) is expressed by granting
// the root per sibling subtree around it (see initproc.ExpandCarved).
func NewPlan(p *policy.Policy) Plan {
	var ll initproc.Landlock
	ll.Required = true
	roots := p.WritableRoots()
	ll.Write = append(append(ll.Write, devFiles...), roots.Roots...)
	readOnly, denied := splitCarveOuts(p, explicitCarveOuts(p, roots.Denied))
	ll.Carved = append(denied, deniedInside(p, roots.Roots, denied)...)
	if p.Baseline == policy.Read {
		ll.Read = []string{"/"}
	}
	for i, l := range p.Layers {
		before := accessBefore(p, i)
		switch {
		case l.Access == policy.Deny && before != policy.Deny:
			ll.ReadCarved = append(ll.ReadCarved, l.Path)
		case l.Access != policy.Deny && before == policy.Deny:
			ll.Read = append(ll.Read, l.Path) // reopened, or granted under an allow-list
		}
	}
	ll.UnixSockets = p.UnixSockets
	ll.RestrictTCP = p.Network.Mode != policy.NetAllowAll
	sc := initproc.Seccomp{
		DenyUnixConnect: true,
		AllowUnix:       append(append([]string{}, roots.Roots...), p.UnixSockets...),
		DenyInet:        p.Network.Mode != policy.NetAllowAll,
		// No read-only mount view holds metadata here: chmod, chown,
		// utimes and xattr changes are performed by the supervisor only
		// inside the writable roots, outside the read-only carve-outs
		// (the generated protected paths stay writable, as for writes).
		GuardMeta:    true,
		MetaWritable: roots.Roots,
		MetaCarved:   ll.Carved,
		PeerCheck:    true,
		UnixHost:     p.UnixSockets,
		// No network namespace: the host's abstract sockets share ours.
		PeerCheckAbstract: true,
	}
	if len(roots.Roots) > 0 {
		// Protected paths are held by the seccomp guard instead: by name
		// at every depth, and the generated ones no name rule covers (an
		// extra subpath such as secrets/key) by absolute path. The
		// supervisor acts outside the command's Landlock domain before
		// ABI 8, so each of its acting threads takes that domain first.
		sc.NameRoots, sc.Names, sc.ConfineGuard = roots.Roots, p.Names, true
		sc.Protected = guardedProtected(p, roots.Roots)
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

// guardedProtected are the generated protected paths the name guard does
// not hold: the seccomp guard holds them by absolute path (creation,
// write-open, truncation, link, rename).
func guardedProtected(p *policy.Policy, roots []string) []string {
	var out []string
	named := p.ProtectedByNameFunc() // once: see its doc
	for _, l := range p.Layers {
		if l.Origin != policy.FromProtected || named(l.Path) {
			continue
		}
		for _, r := range roots {
			if policy.Contains(r, l.Path) {
				out = append(out, l.Path)
				break
			}
		}
	}
	return out
}

// deniedInside are the denied layers inside a writable root that denied
// (the outermost carve-outs) does not already cover: a deny nested in a
// read-only carve-out (the ringfence config dir inside a read-only
// ~/.config, with the workspace at ~). The read-only carve-out is held by
// the guard, not by Landlock, so the writable root's grant would read
// through to the denied path unless it is carved here too.
func deniedInside(p *policy.Policy, roots, denied []string) []string {
	var out []string
	for _, l := range p.Layers {
		if l.Access != policy.Deny || coveredBy(denied, l.Path) || !coveredBy(roots, l.Path) {
			continue
		}
		out = append(out, l.Path)
	}
	return out
}

func coveredBy(dirs []string, path string) bool {
	for _, d := range dirs {
		if policy.Contains(d, path) {
			return true
		}
	}
	return false
}

// explicitCarveOuts keeps the carve-outs a person asked for (a --read-only
// path, a policy-file entry) and drops the generated protected subpaths.
// Carving a path means granting its parent per entry, after which nothing
// can be created directly in that parent: with .git/hooks carved, neither
// the workspace root nor .git accepts a new file, so new top-level files and
// `git commit` (.git/index.lock) fail — on the hosts that need this backend
// most. Protected paths are therefore held by the seccomp guard instead
// (NewPlan); explicit read-only paths keep the per-entry expansion, which
// also refuses deleting them (the guard does not supervise unlink).
func explicitCarveOuts(p *policy.Policy, denied []string) []string {
	generated := map[string]bool{}
	for _, l := range p.Layers {
		if l.Origin == policy.FromProtected {
			generated[l.Path] = true
		}
	}
	var out []string
	for _, d := range denied {
		if !generated[d] {
			out = append(out, d)
		}
	}
	return out
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
	named := p.ProtectedByNameFunc()
	for _, l := range p.Layers {
		if l.Origin == policy.FromProtected && named(l.Path) && exists(l.Path) {
			plan.Seccomp.Protected = append(plan.Seccomp.Protected, l.Path)
			plan.Seccomp.GuardRemove = true
		}
	}
	return plan
}

// splitCarveOuts separates read-only carve-outs (held by the guard) from
// denied ones, which must also be unreadable and so stay a Landlock
// matter (reads are not supervised).
func splitCarveOuts(p *policy.Policy, carves []string) (readOnly, denied []string) {
	access := map[string]policy.Access{}
	for _, l := range p.Layers {
		access[l.Path] = l.Access
	}
	for _, c := range carves {
		if access[c] == policy.Read {
			readOnly = append(readOnly, c)
		} else {
			denied = append(denied, c)
		}
	}
	return readOnly, denied
}

// unprotected are the protected subpaths this backend leaves writable:
// none when the guard runs (a writable root), which holds each by name or
// by absolute path.
func unprotected(p *policy.Policy, plan Plan) []string {
	carved := map[string]bool{}
	for _, c := range plan.Landlock.Carved {
		carved[c] = true
	}
	for _, c := range plan.Seccomp.Protected {
		carved[c] = true
	}
	named := p.ProtectedByNameFunc()
	for _, d := range p.WritableRoots().Denied {
		if len(plan.Seccomp.NameRoots) > 0 && named(d) {
			carved[d] = true
		}
	}
	var out []string
	for _, d := range p.WritableRoots().Denied {
		if !carved[d] {
			out = append(out, relTo(p.Root, d))
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

func accessBefore(p *policy.Policy, i int) policy.Access {
	access := p.Baseline
	for _, l := range p.Layers[:i] {
		if policy.Contains(l.Path, p.Layers[i].Path) {
			access = l.Access
		}
	}
	return access
}

// Enforce states what the plan holds the command to, on a kernel with
// Landlock ABI abi. Everything the policy asks is refused by the kernel,
// but less precisely than with a mount namespace, and the reasons say how.
func Enforce(p *policy.Policy, plan Plan, abi int) confine.Enforcement {
	e := confine.Enforcement{Files: confine.FilesPartial, Network: confine.NetFull}
	e.Reasons = append(e.Reasons, outOfReach(p, abi))
	e.Reasons = append(e.Reasons, "no mount namespace: Landlock alone confines files; /proc, /sys and /tmp are the host's")
	if len(plan.Seccomp.NameRoots) > 0 {
		e.Reasons = append(e.Reasons, "protected and read-only paths are held by the seccomp guard, not by Landlock "+
			"(creation, write, truncation, link, rename and removal are performed by the supervisor); "+
			"a protected name made during the run can be deleted")
	}
	if left := unprotected(p, plan); len(left) > 0 {
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
