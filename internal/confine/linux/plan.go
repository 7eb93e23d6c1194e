package linux

import (
	"slices"
	"sort"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/viewplan"
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
	// writable roots (host paths): bound over when they exist, guarded by
	// seccomp (Seccomp.Protected, view paths) when one does not.
	CarveOuts []string
	// Named are the protected carve-outs the name guard holds by name
	// (Seccomp.NameRoots): never put in Seccomp.Protected, whose absolute
	// rule would refuse even an empty .git/hooks and so `git init`.
	Named []string
	// Mount maps host paths to view paths (the workspace at its mount path).
	Mount Remap
}

// ViewOptions are what the view adds to the policy: where the workspace is
// shown, the home layer and the size of the private scratch mounts.
type ViewOptions struct {
	// MountPath shows the workspace root there instead of at its real
	// path; "" or the root itself: at its real path.
	MountPath string
	Home      *confine.Home
	// HomeCacheAt, when set, replaces the home overlay (its upper
	// directory's filesystem cannot hold one): home stays read-only and
	// Home.Cache is bound writable at this view path, for the cache
	// variables to point at.
	HomeCacheAt string
	// ScratchBytes sizes the private /tmp and /dev/shm; 0: kernel default.
	ScratchBytes int64
	// HostProc shows the host's (a container's) own /proc, read-only and
	// with the processes present at set-up masked, where the kernel
	// refuses a fresh one (initproc.ProcHost; reported by Enforce).
	HostProc bool
}

// Remap rewrites paths at or under From to the same place under To. The
// zero Remap changes nothing.
type Remap struct{ From, To string }

// View is where the command sees host path p.
func (r Remap) View(p string) string {
	if r.From == "" || !policy.Contains(r.From, p) {
		return p
	}
	return r.To + p[len(r.From):]
}

// Active reports whether the workspace is shown somewhere else.
func (r Remap) Active() bool { return r.From != "" && r.From != r.To }

func (r Remap) all(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = r.View(p)
	}
	return out
}

// sysOp is a mount every view has, placed among the layers by depth.
type sysOp struct {
	op    initproc.Op
	depth int
	fresh bool // a mount with content of its own: what lies below is hidden
}

// NewPlan is NewPlanWith without view options.
func NewPlan(p *policy.Policy) Plan { return NewPlanWith(p, ViewOptions{}) }

// NewPlanWith translates the view plan of p (viewplan.New) into mounts,
// Landlock rules and seccomp options. Layers are applied broadest first,
// so a narrower layer lands on top of a broader one: host read-only, write
// layers bound read-write, read layers inside them bound read-only again,
// deny layers masked. The private /tmp, /dev, /proc and the home overlay
// come before any layer at their depth or deeper, so a workspace or a
// named path under /tmp is bound on top of the private /tmp rather than
// hidden by it, and a denied entry of home is masked above the overlay.
func NewPlanWith(p *policy.Policy, o ViewOptions) Plan {
	vp := viewplan.New(p)
	scratchRO := p.Mode != policy.WorkspaceWrite
	var plan Plan
	if o.MountPath != "" && p.Root != "" && o.MountPath != p.Root {
		plan.Mount = Remap{From: p.Root, To: o.MountPath}
	}
	sys := sysOps(p, o, scratchRO)
	plan.View.EmptyBase = p.Baseline == policy.Deny
	// A mount path missing on the host needs a root the init can make a
	// mountpoint in.
	plan.View.SynthRoot = plan.Mount.Active() && !plan.View.EmptyBase
	pending := sys
	for _, s := range vp.Shown {
		for len(pending) > 0 && pending[0].depth <= policy.Depth(s.Path) {
			plan.View.Ops = append(plan.View.Ops, pending[0].op)
			pending = pending[1:]
		}
		if op, ok := layerOp(p, s, sys, plan.Mount); ok {
			plan.View.Ops = append(plan.View.Ops, op)
		}
	}
	for _, s := range pending {
		plan.View.Ops = append(plan.View.Ops, s.op)
	}
	if plan.Mount.Active() && p.Baseline != policy.Deny {
		// Instead, not as well: the real path of the workspace shows
		// nothing, so no host path leaks and nothing written there could
		// be mistaken for the workspace.
		plan.View.Ops = append(plan.View.Ops, initproc.Op{Kind: initproc.Mask, Target: p.Root})
	}
	// Every directory between a writable root and a carve-out is bound
	// onto itself: a mountpoint cannot be renamed or removed (EBUSY), so
	// the directory holding a protected path cannot be moved aside and
	// replaced by a fresh one (mv .git .git2 && mkdir -p .git/hooks), nor
	// can the carve-out itself be removed. Last, over everything else,
	// outermost first (a pin lands on the binds beneath it only if it is
	// made before them).
	for _, pin := range vp.Pins {
		plan.View.Ops = append(plan.View.Ops, initproc.Op{Kind: initproc.Pin, Target: plan.Mount.View(pin.Dir)})
	}
	home := ""
	switch {
	case o.Home != nil && o.HomeCacheAt != "":
		home = o.HomeCacheAt
	case o.Home != nil && homeOverlaid(p, o.Home.Dir):
		home = o.Home.Dir
	}
	roots := viewRoots(p, vp.Roots, plan.Mount)
	plan.Landlock = landlockFor(p, roots, scratchRO, home)
	plan.Seccomp = seccompFor(p, roots)
	for _, c := range vp.CarveOuts {
		plan.CarveOuts = append(plan.CarveOuts, c.Path)
	}
	plan.Named = vp.GuardNames
	plan.NewNet = p.Network.Mode != policy.NetAllowAll
	plan.Loopback = p.Network.Mode == policy.NetLoopback
	return plan
}

// sysOps are the view's own mounts, by depth: fresh /proc, /dev and /tmp
// (bounded), the home overlay, and masks over ringfence's state.
func sysOps(p *policy.Policy, o ViewOptions, scratchRO bool) []sysOp {
	proc := initproc.Proc
	if o.HostProc {
		proc = initproc.ProcHost
	}
	sys := []sysOp{
		{initproc.Op{Kind: proc, Target: "/proc"}, 1, true},
		{initproc.Op{Kind: initproc.Dev, Target: "/dev", RO: scratchRO, Size: o.ScratchBytes}, 1, true},
		{initproc.Op{Kind: initproc.Tmpfs, Target: "/tmp", RO: scratchRO, Size: o.ScratchBytes}, 1, true},
	}
	switch h := o.Home; {
	case h != nil && o.HomeCacheAt != "":
		// In the private /tmp, an init's own tmpfs: its mountpoint can be
		// made there, and ringfence's state stays masked whole.
		sys = append(sys, sysOp{initproc.Op{Kind: initproc.BindRW, Source: h.Cache, Target: o.HomeCacheAt},
			policy.Depth(o.HomeCacheAt), false})
	case h != nil && homeOverlaid(p, h.Dir):
		sys = append(sys, sysOp{initproc.Op{Kind: initproc.Overlay, Source: h.Dir, Target: h.Dir,
			Upper: h.Upper, Work: h.Work}, policy.Depth(h.Dir), true})
	}
	if h := o.Home; h != nil {
		for _, d := range h.Hide {
			sys = append(sys, sysOp{initproc.Op{Kind: initproc.Mask, Target: d}, policy.Depth(d), false})
		}
	}
	sort.SliceStable(sys, func(i, j int) bool { return sys[i].depth < sys[j].depth })
	return sys
}

// homeOverlaid says whether home gets the copy-on-write layer: only where
// the policy leaves it as the baseline's read-only host content. A home
// the policy makes writable (the workspace is home, or contains it),
// denies, or hides under an allow-list stays as the policy says.
func homeOverlaid(p *policy.Policy, home string) bool {
	if home == "" || home == "/" || p.Baseline != policy.Read || p.AccessAt(home) != policy.Read {
		return false
	}
	for _, l := range p.Layers {
		if policy.Contains(l.Path, home) && l.Access != policy.Read {
			return false
		}
	}
	return !policy.Contains(p.Root, home)
}

// underFresh reports whether, for layer index i of layers (-1: none of
// them applies), the deepest mount containing path is one of the view's
// own fresh mounts (private /tmp, home overlay) rather than a layer:
// then the host content at path is hidden and a layer there must be
// mounted even if it grants what the baseline does.
func underFresh(path string, layerDepth int, sys []sysOp) bool {
	for _, s := range sys {
		if s.fresh && policy.Contains(s.op.Target, path) && s.depth > layerDepth {
			return true
		}
	}
	return false
}

// layerOp is the mount op for layers[i], if it changes anything: when
// the access differs from what the containing layers give, when a fresh
// mount of the view hides the host content there, or when it is the
// workspace root shown at its mount path.
func layerOp(p *policy.Policy, l viewplan.Step, sys []sysOp, m Remap) (initproc.Op, bool) {
	moved := m.Active() && l.Path == p.Root
	if !l.Changes() && !moved && !underFresh(l.Path, l.BeforeDepth, sys) {
		return initproc.Op{}, false
	}
	op := initproc.Op{Source: l.Path, Target: m.View(l.Path), Protected: l.Origin == policy.FromProtected}
	switch l.Mount() {
	case viewplan.BindRW:
		op.Kind = initproc.BindRW
	case viewplan.BindRO:
		op.Kind = initproc.BindRO
	default:
		op.Kind = initproc.Mask // Source kept: Enforce checks the host path
	}
	return op, true
}

// viewRoots are the writable roots where the command sees them. A
// workspace shown at its mount path and writable through a broader root
// (a write entry for a parent of it, such as home) has no root of its
// own, and the broader root is not moved with it: without the mount path
// here Landlock refused every write to the workspace, and the name guard
// did not watch it (TestPlanSimulatedMatchesAccessAt).
func viewRoots(p *policy.Policy, roots []string, m Remap) []string {
	out := m.all(roots)
	if m.Active() && p.AccessAt(p.Root) == policy.Write && !slices.Contains(roots, p.Root) {
		out = append(out, m.To)
	}
	return out
}

// landlockFor is the Landlock ruleset for the view: everything readable
// (reads are confined by the view itself: masks and, under an allow-list
// baseline, an empty root), writes only to the writable roots and the
// private scratch. Landlock cannot subtract, so carve-outs inside roots
// are left to the read-only mounts; Landlock's own contributions are
// defence in depth for writes and the signal and abstract-socket scopes.
func landlockFor(p *policy.Policy, roots []string, scratchRO bool, home string) initproc.Landlock {
	ll := initproc.Landlock{Read: []string{"/"}, Write: []string{"/dev"}}
	if !scratchRO {
		ll.Write = append(ll.Write, "/tmp")
	}
	if home != "" {
		// The overlay takes every write; its denied entries are masked.
		ll.Write = append(ll.Write, home)
	}
	ll.Write = append(ll.Write, roots...)
	ll.UnixSockets = p.UnixSockets
	return ll
}

// seccompFor supervises unix-socket connects: a read-only mount does not
// stop connect(2), so a Docker or ssh-agent socket the view shows would
// otherwise be reachable. Sockets in the writable roots and the private
// /tmp (made by the command itself) and those the policy names connect.
// Home is not among them even when overlaid: a host socket there (a
// docker or gpg agent's) is reached through the overlay's lower layer.
func seccompFor(p *policy.Policy, roots []string) initproc.Seccomp {
	allow := append([]string{"/tmp"}, roots...)
	// A socket the policy does not name connects only when its listener
	// is inside the sandbox (PeerCheck): a host process's socket file in a
	// writable root is a host socket. Under allow-all the sandbox shares
	// the host's network namespace, and with it the host's abstract
	// sockets: those are peer-checked too. Names are protected at every
	// depth of every writable root (as the view names them), which no
	// mount can express: the guard supervises each write there.
	return initproc.Seccomp{DenyUnixConnect: true, AllowUnix: append(allow, p.UnixSockets...),
		PeerCheck: true, UnixHost: p.UnixSockets, PeerCheckAbstract: p.Network.Mode == policy.NetAllowAll,
		NameRoots: roots, Names: p.Names}
}
