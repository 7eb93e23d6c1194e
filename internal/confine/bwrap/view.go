package bwrap

import (
	"fmt"
	"sort"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/policy"
)

// state is what the sandbox's mount view shows at a subtree.
type state int

const (
	hostRO  state = iota // the host's content, read-only
	hostRW               // the host's content, writable: effects land on the host
	masked               // hidden behind an empty read-only tmpfs or /dev/null
	private              // sandbox-only content (tmpfs /tmp, /dev, /proc)
)

// step is one entry of the view plan: a policy layer, or one the backend
// adds (the special mounts, the shim, the system set under a Deny baseline).
type step struct {
	path    string
	access  policy.Access
	special string // "--dev", "--proc", "--tmpfs": a fresh sandbox-only mount
	pinFD   int    // > 0: pin path with this descriptor (see PinDirs)
}

// systemPaths are what a dynamically linked program needs to start. Under a
// Deny baseline they are bound read-only so that a shell can run at all;
// Enforcement names every one the policy itself would have hidden.
var systemPaths = []string{
	"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime",
}

type view struct {
	plan    *viewplan.Plan // what the policy asks the view to be
	m       remap          // the workspace shown at its mount path
	args    []string
	applied []applied // the states set so far, in order
	remount []string  // masked tmpfs dirs to make read-only once all mounts exist
	reasons []string  // why file enforcement is partial
	// absent are read-only or denied paths inside a writable root that do
	// not exist yet: guarded by the shim when it supervises, else reported.
	absent []missingPath
	// protected are missing carve-outs an expansion already covers.
	protected map[string]bool
	// fdBase > 0: expanded entries are bound from descriptors the caller
	// opens (opens, numbered from fdBase), not by path (see bindEntry).
	fdBase int
	opens  []Open
	// named reports missing carve-outs the shim's name guard holds
	// (policy.ProtectedByName, when it supervises): neither expanded
	// around nor guarded by path, so `git init` can make .git/hooks.
	named func(path string) bool
}

type applied struct {
	path  string
	state state
}

// buildView turns the policy's layers into mount arguments, in order,
// broadest first, so that a deeper layer is mounted over a broader one.
func buildView(vp *viewplan.Plan, req confine.Request, opts ArgOptions) (*view, error) {
	p := vp.Policy
	v := &view{plan: vp, protected: map[string]bool{}, m: remapFor(p, req, opts), fdBase: opts.OpenFDBase,
		named: func(string) bool { return false }}
	if opts.SuperviseUnix {
		v.named = v.plan.ByName
	}
	switch {
	case p.Baseline == policy.Deny:
		v.applied = append(v.applied, applied{"/", masked})
		v.remount = append(v.remount, "/")
	case v.m.active():
		if err := v.synthRoot(rootLister(opts)); err != nil {
			return nil, fmt.Errorf("bwrap: cannot list the root: %w", err)
		}
	default:
		v.args = append(v.args, "--ro-bind", "/", "/")
		v.applied = append(v.applied, applied{"/", hostRO})
	}
	for _, s := range plan(v.plan, req, opts) {
		if err := v.apply(p, s, opts); err != nil {
			return nil, err
		}
	}
	v.args = v.m.destinations(v.args)
	for i := range v.remount {
		v.remount[i] = v.m.view(v.remount[i])
	}
	if v.m.active() && p.Baseline != policy.Deny && !policy.Contains("/tmp", p.Root) {
		// Instead, not as well: the real path shows nothing, so no host
		// path leaks.
		v.args = append(v.args, "--tmpfs", p.Root)
		v.remount = append(v.remount, p.Root)
	}
	if p.Network.Mode == policy.NetDomains {
		// The DNS stub's resolv.conf, read-only (before the root is made
		// read-only: its mount point may have to be made first).
		v.args = append(v.args, "--ro-bind", opts.ResolvConf, "/etc/resolv.conf")
	}
	for i := len(v.remount) - 1; i >= 0; i-- {
		v.args = append(v.args, "--remount-ro", v.remount[i])
	}
	return v, nil
}

// plan lists the steps, stably sorted by depth. Backend steps come first at
// each depth so that a policy layer at the same path overrides them.
func plan(vp *viewplan.Plan, req confine.Request, opts ArgOptions) []step {
	p := vp.Policy
	var steps []step
	if p.Baseline == policy.Deny {
		for _, s := range systemPaths {
			steps = append(steps, step{path: s, access: policy.Read})
		}
	}
	steps = append(steps, step{path: "/dev", special: "--dev"}, step{path: "/proc", special: "--proc"},
		step{path: "/tmp", special: "--tmpfs"}, step{path: "/dev/shm", special: "--tmpfs"})
	steps = append(steps, homeSteps(p, req.Home)...)
	// The root and working directory stay visible at the access the
	// policy gives them even when a private /tmp or a Deny baseline
	// would otherwise hide them.
	for _, dir := range []string{p.Root, workDir(p, req)} {
		if a := p.AccessAt(dir); dir != "" && a != policy.Deny {
			steps = append(steps, step{path: dir, access: a})
		}
	}
	for _, d := range pinDirs(vp) {
		if fd := opts.Pins[d]; fd > 0 {
			steps = append(steps, step{path: d, pinFD: fd})
		}
	}
	for _, s := range vp.Steps {
		steps = append(steps, step{path: s.Path, access: s.Access})
	}
	sort.SliceStable(steps, func(i, j int) bool {
		return policy.Depth(steps[i].path) < policy.Depth(steps[j].path)
	})
	return steps
}

// before is the state at path from the steps applied so far.
func (v *view) before(path string) state {
	st := hostRO
	for _, a := range v.applied {
		if policy.Contains(a.path, path) {
			st = a.state
		}
	}
	return st
}

func (v *view) set(path string, st state, args ...string) {
	v.args = append(v.args, args...)
	v.applied = append(v.applied, applied{path, st})
}

func (v *view) apply(p *policy.Policy, s step, opts ArgOptions) error {
	if s.pinFD > 0 {
		v.pinStep(s)
		return nil
	}
	if s.special == "--tmpfs" {
		v.set(s.path, private, sized(opts.ScratchBytes, s.special, s.path)...)
		return nil
	}
	if s.special != "" {
		v.set(s.path, private, s.special, s.path)
		if s.special == "--proc" {
			// bwrap leaves its procfs writable: only subdirectories that
			// access(W_OK) calls writable are covered, and /proc/sys never
			// is (its files are), so uid 0 mapped to host root could write
			// any sysctl (kernel.core_pattern: host root). Read-only like
			// the native backend's: /proc/sys, sysrq-trigger, /proc/PID/mem
			// and every other file of it that writes kernel state.
			v.remount = append(v.remount, s.path)
		}
		return nil
	}
	was := v.before(s.path)
	moved := v.m.active() && s.path == p.Root && !v.appliedAt(s.path)
	if s.access == policy.Write && opts.List != nil {
		if done, err := v.expandIfNeeded(p, s.path, opts); done || err != nil {
			return err
		}
	}
	if want := stateFor(s.access); !moved && (want == was || (want == masked && was == private)) {
		return nil
	}
	kind, err := opts.Stat(s.path)
	if err != nil {
		return fmt.Errorf("bwrap: cannot inspect a policy path: %w", err)
	}
	if kind == Missing {
		v.missing(s, was)
		return nil
	}
	switch s.access {
	case policy.Write:
		v.set(s.path, hostRW, "--bind", s.path, s.path)
	case policy.Read:
		v.set(s.path, hostRO, "--ro-bind", s.path, s.path)
	default:
		v.mask(s.path, kind)
	}
	return nil
}

// expandIfNeeded expands the writable directory path around read-only or
// denied paths beneath it that do not exist yet (and that no expansion
// covers already), so they stay protected. It runs even when path is
// already writable through a parent: the parent's bind does not protect
// them.
func (v *view) expandIfNeeded(p *policy.Policy, path string, opts ArgOptions) (bool, error) {
	carves, err := missingCarves(v.plan, path, opts.Stat)
	if err != nil {
		return false, fmt.Errorf("bwrap: cannot inspect a policy path: %w", err)
	}
	var todo []string
	for _, c := range carves {
		if !v.protected[c] && !v.named(c) {
			todo = append(todo, c)
		}
	}
	if kind, err := opts.Stat(path); len(todo) == 0 || err != nil || kind != Dir {
		return false, err
	}
	if err := v.expand(path, todo, opts.List); err != nil {
		return false, fmt.Errorf("bwrap: cannot list a writable root: %w", err)
	}
	return true, nil
}

// mask hides a readable path: an empty tmpfs over a directory (made
// read-only at the end, once mount points inside it exist), /dev/null over
// anything else.
func (v *view) mask(path string, kind Kind) {
	if kind == Dir {
		v.set(path, masked, "--tmpfs", path)
		v.remount = append(v.remount, path)
		return
	}
	v.set(path, masked, "--ro-bind", "/dev/null", path)
}

// missing handles a layer whose path does not exist on the host. Only
// inside a writable subtree does it matter: the command could create it
// there, and bwrap cannot mount over it without creating the mount point
// on the host first, which would leave files behind. So it is reported,
// never papered over.
func (v *view) missing(s step, was state) {
	if was != hostRW || s.access == policy.Write || v.protected[s.path] || v.named(s.path) {
		return
	}
	what := "read-only"
	if s.access == policy.Deny {
		what = "denied"
	}
	v.absent = append(v.absent, missingPath{what: what, path: s.path})
}

type missingPath struct{ what, path string }

// missingReasons says which missing paths go unprotected when the shim does
// not supervise (bwrap cannot mount over a path without creating it).
func missingReasons(ms []missingPath) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf(
			"%s path %s does not exist yet inside a writable root; bwrap cannot protect a path that does not exist without creating it on the host",
			m.what, m.path))
	}
	return out
}

func stateFor(a policy.Access) state {
	switch a {
	case policy.Write:
		return hostRW
	case policy.Read:
		return hostRO
	}
	return masked
}

// enforcement states what this view holds the command to.
func enforcement(p *policy.Policy, fileReasons []string, opts ArgOptions) confine.Enforcement {
	e := confine.Enforcement{Files: confine.FilesFull, Network: confine.NetFull}
	e.Reasons = append(e.Reasons, fileReasons...)
	e.Reasons = append(e.Reasons, widened(p, opts)...)
	if !opts.UnixSocketsRefused {
		e.Reasons = append(e.Reasons, "connect() to host unix sockets on readable paths is not refused (a read-only mount does not stop it, and bwrap loads no unix-socket rule)")
	}
	if len(e.Reasons) > 0 {
		e.Files = confine.FilesPartial
	}
	switch p.Network.Mode {
	case policy.NetAllowAll:
		e.Network = confine.NetNone
	case policy.NetDeny:
		e.Network = confine.NetLoopbackOnly
		e.Reasons = append(e.Reasons, "network deny: bwrap brings up lo in the new network namespace, so the command reaches its own loopback (nothing on the host)")
	case policy.NetDomains:
		// Full: only lo, every destination routed to it, every connection
		// decided by the policy proxy (the exec shim hosts the listeners).
		e.Network = confine.NetFull
	}
	return e
}

// widened names the paths a Deny baseline hides that the view still shows
// so that a program can start at all: the system set. (The shim is a
// descriptor, not a path in the view: ArgOptions.Shim.)
func widened(p *policy.Policy, opts ArgOptions) []string {
	if p.Baseline != policy.Deny {
		return nil
	}
	var out []string
	for _, s := range systemPaths {
		if p.AccessAt(s) != policy.Deny {
			continue
		}
		if k, err := opts.Stat(s); err == nil && k != Missing {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("baseline deny: %v stay readable so that a program can start", out)}
}

// socketRules turn the view into the shim's unix-socket rules, in order,
// the last one containing a path deciding: "+P" where the view is writable
// host content or sandbox-private (a socket there is the command's own, or
// in its workspace), "-P" where it is read-only or masked host content (a
// socket there is a host service's). Sockets the policy names come last.
func (v *view) socketRules(p *policy.Policy) []string {
	out := make([]string, 0, len(v.applied)+len(p.UnixSockets))
	for _, a := range v.applied {
		sign := "-"
		if a.state == hostRW || a.state == private {
			sign = "+"
		}
		out = append(out, sign+v.m.view(a.path))
	}
	for _, s := range p.UnixSockets {
		// "=": allowed whoever listens there (the policy names it); a "+"
		// socket must have its listener inside the sandbox.
		out = append(out, "="+policy.Clean(s))
	}
	return out
}

// appliedAt reports whether a step was already applied at exactly path.
func (v *view) appliedAt(path string) bool {
	for _, a := range v.applied {
		if a.path == path {
			return true
		}
	}
	return false
}
