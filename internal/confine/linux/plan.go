package linux

import (
	"sort"

	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/policy"
)

// Plan is the pure part of Confine: the view, Landlock rules and network
// set-up that enforce p, computed without touching the host.
type Plan struct {
	View     initproc.View
	Landlock initproc.Landlock
	Seccomp  initproc.Seccomp
	NewNet   bool // a network namespace of its own
	Loopback bool // with "lo" up
	// CarveOuts are the read-only, protected and denied paths inside the
	// writable roots: bound over when they exist, guarded by seccomp
	// (Seccomp.Protected) when one does not.
	CarveOuts []string
	// Named are the protected carve-outs the name guard holds by name
	// (Seccomp.NameRoots): never put in Seccomp.Protected, whose absolute
	// rule would refuse even an empty .git/hooks and so `git init`.
	Named []string
}

// sysOp is a mount every view has, placed among the layers by depth.
type sysOp struct {
	op    initproc.Op
	depth int
}

// NewPlan computes the plan for p. Layers are applied broadest first, so
// a narrower layer lands on top of a broader one: host read-only, write
// layers bound read-write, read layers inside them bound read-only again,
// deny layers masked. The private /tmp, /dev and /proc come before any
// layer at their depth or deeper, so a workspace under /tmp is bound on
// top of the private /tmp rather than hidden by it.
func NewPlan(p *policy.Policy) Plan {
	scratchRO := p.Mode != policy.WorkspaceWrite
	sys := []sysOp{
		{initproc.Op{Kind: initproc.Proc, Target: "/proc"}, 1},
		{initproc.Op{Kind: initproc.Dev, Target: "/dev", RO: scratchRO}, 1},
		{initproc.Op{Kind: initproc.Tmpfs, Target: "/tmp", RO: scratchRO}, 1},
	}
	var plan Plan
	plan.View.EmptyBase = p.Baseline == policy.Deny
	for i, l := range p.Layers {
		for len(sys) > 0 && sys[0].depth <= policy.Depth(l.Path) {
			plan.View.Ops = append(plan.View.Ops, sys[0].op)
			sys = sys[1:]
		}
		if op, ok := layerOp(p, i); ok {
			plan.View.Ops = append(plan.View.Ops, op)
		}
	}
	for _, s := range sys {
		plan.View.Ops = append(plan.View.Ops, s.op)
	}
	plan.View.Ops = append(plan.View.Ops, pinOps(p)...)
	plan.Landlock = landlockFor(p, scratchRO)
	plan.Seccomp = seccompFor(p)
	for _, c := range carveOuts(p) {
		plan.CarveOuts = append(plan.CarveOuts, c.Path)
		if c.Origin == policy.FromProtected && len(plan.Seccomp.NameRoots) > 0 && p.ProtectedByName(c.Path) {
			plan.Named = append(plan.Named, c.Path)
		}
	}
	plan.NewNet = p.Network.Mode != policy.NetAllowAll
	plan.Loopback = p.Network.Mode == policy.NetLoopback
	return plan
}

// layerOp is the mount op for layer i, if it changes anything.
func layerOp(p *policy.Policy, i int) (initproc.Op, bool) {
	l := p.Layers[i]
	if accessBefore(p, i) == l.Access {
		return initproc.Op{}, false
	}
	op := initproc.Op{Source: l.Path, Target: l.Path, Protected: l.Origin == policy.FromProtected}
	switch l.Access {
	case policy.Write:
		op.Kind = initproc.BindRW
	case policy.Read:
		op.Kind = initproc.BindRO
	default:
		op.Kind = initproc.Mask
	}
	return op, true
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

// carveOuts are the layers that take write away inside a writable root,
// in layer order: read-only carve-outs and protected paths.
func carveOuts(p *policy.Policy) []policy.Layer {
	var out []policy.Layer
	for i, l := range p.Layers {
		if l.Access != policy.Write && accessBefore(p, i) == policy.Write {
			out = append(out, l)
		}
	}
	return out
}

// pinOps bind every directory between a writable root and a carve-out
// onto itself. A mountpoint cannot be renamed or removed (EBUSY), so the
// directory holding a protected path cannot be moved aside and replaced
// by a fresh one (mv .git .git2 && mkdir -p .git/hooks), nor can the
// carve-out itself be removed. Applied last, over everything else.
func pinOps(p *policy.Policy) []initproc.Op {
	roots := p.WritableRoots().Roots
	seen := map[string]bool{}
	var dirs []string
	for _, c := range carveOuts(p) {
		root := deepestContaining(roots, c.Path)
		for d := parent(c.Path); root != "" && d != root && policy.Contains(root, d); d = parent(d) {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
	}
	// Outer directories first: a pin lands on the binds beneath it only
	// if it is made before them — so pin from the outside in.
	sort.SliceStable(dirs, func(i, j int) bool { return policy.Depth(dirs[i]) < policy.Depth(dirs[j]) })
	var ops []initproc.Op
	for _, d := range dirs {
		ops = append(ops, initproc.Op{Kind: initproc.Pin, Target: d})
	}
	return ops
}

func deepestContaining(roots []string, path string) string {
	best := ""
	for _, r := range roots {
		if policy.Contains(r, path) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

func parent(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

// landlockFor is the Landlock ruleset for the view: everything readable
// (reads are confined by the view itself: masks and, under an allow-list
// baseline, an empty root), writes only to the writable roots and the
// private scratch. Landlock cannot subtract, so carve-outs inside roots
// are left to the read-only mounts; Landlock's own contributions are
// defence in depth for writes and the signal and abstract-socket scopes.
func landlockFor(p *policy.Policy, scratchRO bool) initproc.Landlock {
	ll := initproc.Landlock{Read: []string{"/"}, Write: []string{"/dev"}}
	if !scratchRO {
		ll.Write = append(ll.Write, "/tmp")
	}
	ll.Write = append(ll.Write, p.WritableRoots().Roots...)
	ll.UnixSockets = p.UnixSockets
	return ll
}

// seccompFor supervises unix-socket connects: a read-only mount does not
// stop connect(2), so a Docker or ssh-agent socket the view shows would
// otherwise be reachable. Sockets in the writable roots and the private
// /tmp (made by the command itself) and those the policy names connect.
func seccompFor(p *policy.Policy) initproc.Seccomp {
	roots := p.WritableRoots().Roots
	allow := append([]string{"/tmp"}, roots...)
	// A socket the policy does not name connects only when its listener
	// is inside the sandbox (PeerCheck): a host process's socket file in a
	// writable root is a host socket. Under allow-all the sandbox shares
	// the host's network namespace, and with it the host's abstract
	// sockets: those are peer-checked too. Names are protected at every
	// depth of every writable root, which no mount can express: the guard
	// supervises each write there.
	return initproc.Seccomp{DenyUnixConnect: true, AllowUnix: append(allow, p.UnixSockets...),
		PeerCheck: true, UnixHost: p.UnixSockets, PeerCheckAbstract: p.Network.Mode == policy.NetAllowAll,
		NameRoots: roots, Names: p.Names}
}
