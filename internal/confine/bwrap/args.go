package bwrap

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap/shim"
	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
)

// Kind is what a host path is, as far as the mount view cares.
type Kind int

// Path kinds. Anything that is not a directory is masked like a file.
const (
	Missing Kind = iota // does not exist (or a component is not a directory)
	Dir
	File
)

// StatFunc reports what a host path is. It is injected so that Args stays
// a pure function of its inputs; an error (other than "missing", which is
// Kind Missing) makes Args fail rather than guess.
type StatFunc func(path string) (Kind, error)

// ShimArg is the entry point of the exec shim bwrap runs inside the
// sandbox (internal/confine/bwrap/shim).
const ShimArg = shim.Arg

// ArgOptions are the host facts and descriptor numbers Args needs.
type ArgOptions struct {
	Stat StatFunc // required
	// List, when set, lets a writable root holding a read-only or denied
	// path that does not exist yet be expanded around it (see expand), so
	// the path is protected; when nil such a path is reported instead.
	List ListFunc
	// Shim is what bwrap executes as the exec shim, a path inside the
	// sandbox: /proc/self/fd/N of a descriptor bwrap passes on (the carried
	// image, or the running binary). Nothing is bound for it, so the
	// ringfence binary need not be visible in the view. Required, absolute.
	Shim      string
	StatusFD  int // descriptor (in bwrap's table) for --json-status-fd; 0: none
	ShimFD    int // descriptor the shim reports exec failure on; required
	SeccompFD int // descriptor holding a compiled filter for --seccomp; 0: none
	// UnixSocketsRefused says something else refuses connect() to host
	// unix sockets, so Enforcement need not flag them.
	UnixSocketsRefused bool
	// SuperviseUnix makes the shim stay as the command's parent inside the
	// sandbox and supervise its unix-socket connects (seccomp user
	// notification): a socket is allowed where the view is writable or
	// sandbox-private, or when the policy names it; every other one is a
	// host socket and refused.
	SuperviseUnix bool
	// Pins maps each directory of PinDirs that exists as a real directory
	// (no link on the way from its root) to the descriptor, in bwrap's
	// table, of that directory opened by the caller; it is bound over
	// itself (--bind-fd) so that it cannot be renamed or removed. A
	// directory missing from the map is not pinned (it does not exist, or
	// is reached through a link).
	Pins map[string]int
	// OpenFDBase, when > 0, makes an expanded root's entries bound from
	// descriptors (--bind-fd) numbered from it, which the caller opens in
	// the order Spec.Opens lists; 0 binds them by path.
	OpenFDBase int
	// ListRoot lists the host's root to build a root of per-entry binds
	// when the workspace is shown at a mount path; nil: List is used, and
	// with neither the workspace stays at its real path (reported).
	ListRoot ListFunc
	// ScratchBytes sizes the private /tmp and /dev/shm (--size); 0 leaves
	// bwrap's default (the kernel's: half the RAM).
	ScratchBytes int64
	// HandoffFD and ResolvConf are required under the domains network: the
	// descriptor (in bwrap's table) of the sandbox's end of the handoff
	// socket pair, which the shim serves (see domainnet.Serve), and the
	// host path of the resolv.conf naming the DNS stub, bound over
	// /etc/resolv.conf.
	HandoffFD  int
	ResolvConf string
}

// Spec is the pure result of planning one bwrap invocation.
type Spec struct {
	// Args is the complete logical argv after the program name: bwrap
	// options, "--", the shim and its arguments, "--", the command.
	Args []string
	// Split is the index of the first "--" in Args: everything before it
	// is handed to bwrap through --args FD so that no environment value
	// or host path appears on bwrap's command line.
	Split       int
	Enforcement confine.Enforcement
	// Opens are the entries the caller must open (without following a
	// link) as descriptors OpenFDBase, OpenFDBase+1, … before bwrap runs.
	Opens []Open
}

// Args is Plan's argv alone: a pure function of the policy, the request and
// the injected host facts.
func Args(p *policy.Policy, req confine.Request, opts ArgOptions) ([]string, error) {
	s, err := Plan(p, req, opts)
	return s.Args, err
}

// Plan builds the bwrap argv for req under p and says what it enforces.
func Plan(p *policy.Policy, req confine.Request, opts ArgOptions) (Spec, error) {
	if p == nil {
		return Spec{}, check(p, req, opts) // no view plan without a policy
	}
	return planWith(viewplan.New(p), req, opts)
}

// planWith is Plan from the view plan of the policy, which Confine builds
// once for the pins, the plan and the entries (issue 16).
func planWith(vp *viewplan.Plan, req confine.Request, opts ArgOptions) (Spec, error) {
	p := vp.Policy
	if err := check(p, req, opts); err != nil {
		return Spec{}, err
	}
	v, err := buildView(vp, req, opts)
	if err != nil {
		return Spec{}, err
	}
	a := v.args
	a = append(a, namespaceArgs(p)...)
	a = append(a, "--die-with-parent", "--new-session", "--cap-drop", "ALL")
	domains := p.Network.Mode == policy.NetDomains
	if domains {
		// The shim, as pid 1, needs these for the domains network's setup
		// (routes on lo, listeners below 1024) and drops every one of
		// them, bounding set included (CAP_SETPCAP), before the command
		// exists; see runCommand.
		a = append(a, "--cap-add", "CAP_NET_ADMIN", "--cap-add", "CAP_NET_BIND_SERVICE", "--cap-add", "CAP_SETPCAP")
	}
	a = append(a, "--clearenv")
	env, homeReasons := homeEnv(req)
	if domains {
		env = netproxy.WithProxyEnv(env)
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", name, value)
	}
	a = append(a, "--chdir", v.m.view(workDir(p, req)))
	a = appendFD(a, "--json-status-fd", opts.StatusFD)
	a = appendFD(a, "--seccomp", opts.SeccompFD)
	split := len(a)
	a = append(a, "--", opts.Shim, ShimArg, strconv.Itoa(opts.ShimFD))
	if domains {
		a = append(a, "--proxy", strconv.Itoa(opts.HandoffFD))
	}
	if !hasVar(req.Env, "PWD") {
		a = append(a, "--unset", "PWD") // bwrap's --chdir sets it; the allow-list did not name it
	}
	reasons := append(append([]string(nil), v.reasons...), homeReasons...)
	if req.MountPath != "" && req.MountPath != p.Root && !v.m.active() {
		reasons = append(reasons, "the workspace is at its real path, not at "+req.MountPath+" (no host listing to build a root from)")
	}
	if opts.SuperviseUnix {
		a = append(a, "--supervise")
		for _, r := range v.socketRules(p) {
			a = append(a, "--sock", r)
		}
		// The shim's seccomp guard refuses creating these (it performs
		// every creation itself), so they are protected though missing.
		for _, m := range v.absent {
			a = append(a, "--protect", v.m.view(m.path))
		}
		// Names protected at every depth of the writable roots: the guard
		// also supervises every write-open and truncation there. The
		// guard sees the command's paths, so the roots are named where
		// the view shows them: under a mount path the real path is not
		// even shown (TestMountPathProtectedNames).
		for _, r := range viewRoots(p, v.plan.Roots, v.m) {
			a = append(a, "--names-root", r)
		}
		for _, n := range p.Names.Extra {
			a = append(a, "--names-extra", n)
		}
		if p.Names.GitWritable {
			a = append(a, "--names-git-writable")
		}
		opts.UnixSocketsRefused = true
	} else {
		reasons = append(reasons, missingReasons(v.absent)...)
		if len(v.plan.Roots) > 0 {
			reasons = append(reasons, "names protected at any depth (a nested repository's .git/config and hooks, "+
				".envrc, agent configs, git hook names) are not held without the shim's supervision")
		}
	}
	a = append(a, "--")
	a = append(a, req.Argv...)
	return Spec{Args: a, Split: split, Enforcement: enforcement(p, reasons, opts), Opens: v.opens}, nil
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

func appendFD(a []string, flag string, fd int) []string {
	if fd <= 0 {
		return a
	}
	return append(a, flag, strconv.Itoa(fd))
}

// namespaceArgs unshares everything bwrap can; the network only when the
// policy does not allow everything. --disable-userns stops the command
// from making a nested user namespace to regain capabilities. --as-pid-1
// leaves out bwrap's own init, which would be a process in the sandbox
// outside the shim's filters, dumpable and signallable by the command:
// the shim is pid 1 instead (see Shim).
//
// Under the domains network --disable-userns is left out: bwrap
// implements it by moving the sandbox into a nested user namespace, where
// the shim's capabilities no longer reach the network namespace (owned by
// the outer one), so the shim could not route lo or bind its listeners.
// The seccomp filter still refuses every way to a new user namespace
// (unshare, setns, clone with CLONE_NEW*, clone3), which is what the
// command meets either way; TestDomainsNoNestedUserns tries it.
func namespaceArgs(p *policy.Policy) []string {
	a := []string{"--unshare-user", "--disable-userns", "--unshare-pid", "--as-pid-1", "--unshare-ipc",
		"--unshare-uts", "--unshare-cgroup-try"}
	if p.Network.Mode == policy.NetDomains {
		a = slices.Delete(a, 1, 2)
	}
	if p.Network.Mode != policy.NetAllowAll {
		a = append(a, "--unshare-net")
	}
	return a
}

// workDir is the request's directory, else the workspace root.
func workDir(p *policy.Policy, req confine.Request) string {
	if req.Dir != "" {
		return policy.Clean(req.Dir)
	}
	return p.Root
}

// check refuses inputs bwrap could misread: the --args stream is
// NUL-separated, so no argument may contain a NUL, and an environment entry
// must have a name.
func check(p *policy.Policy, req confine.Request, opts ArgOptions) error {
	switch {
	case p == nil:
		return fmt.Errorf("%w: no policy", policy.ErrPolicy)
	case !p.Confining():
		return confine.ErrNotConfining
	case len(req.Argv) == 0 || req.Argv[0] == "":
		return fmt.Errorf("%w: empty argv", policy.ErrPolicy)
	case opts.Stat == nil || !strings.HasPrefix(opts.Shim, "/") || opts.ShimFD <= 2:
		return fmt.Errorf("bwrap: incomplete options (stat, shim path, shim descriptor)")
	case p.Network.Mode == policy.NetDomains && (opts.HandoffFD <= 2 || !strings.HasPrefix(opts.ResolvConf, "/")):
		// Fail closed: without the shim's listeners and the stub, domains
		// would silently become "no network at all".
		return fmt.Errorf("bwrap: the domains network needs the handoff descriptor and the stub's resolv.conf")
	}
	for _, fd := range opts.Pins {
		if fd <= 2 {
			return fmt.Errorf("bwrap: a pin on a standard descriptor")
		}
	}
	if opts.OpenFDBase < 0 || (opts.OpenFDBase > 0 && opts.OpenFDBase <= 2) {
		return fmt.Errorf("bwrap: entries opened on a standard descriptor")
	}
	for _, kv := range req.Env {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			return fmt.Errorf("%w: environment entry without a name", policy.ErrPolicy)
		}
	}
	for _, s := range append(append([]string{p.Root, req.Dir}, req.Env...), layerPaths(p)...) {
		if strings.ContainsRune(s, 0) {
			return fmt.Errorf("%w: NUL byte in a path or environment entry", policy.ErrPolicy)
		}
	}
	return nil
}

func layerPaths(p *policy.Policy) []string {
	out := make([]string, len(p.Layers))
	for i, l := range p.Layers {
		out[i] = l.Path
	}
	return out
}
