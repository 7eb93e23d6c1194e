package landlock

import (
	"fmt"
	"os"
	"sync"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Name is the backend's name.
const Name = "landlock"

// Options configures the backend.
type Options struct {
	// ForceUnavailable, when set, makes Available fail with this reason
	// without probing (tests; doctor's simulation of an older kernel).
	ForceUnavailable string

	// sharedDomain leaves the command in its init's Landlock domain, as
	// before Spec.Nest: only the tests' controls set it, to show what the
	// command could do to its init without a domain of its own.
	sharedDomain bool
	// goExecStage starts the command through the init's own image as the
	// exec stage, not the carried one (tests: the path of builds without
	// a carried stage).
	goExecStage bool
	// onProxy, when set, learns the domains network's proxy ports (tests:
	// an "evil" server at the proxy's port on another address).
	onProxy func(httpPort, socksPort uint16)
}

// Provider is the landlock backend.
type Provider struct {
	opts  Options
	once  sync.Once
	avail error
}

// New returns the landlock backend.
func New(opts Options) confine.Provider { return &Provider{opts: opts} }

// Name implements confine.Provider.
func (p *Provider) Name() string { return Name }

// Traits implements confine.Provider: no namespaces (host processes are
// visible, a program that ignores the proxy reaches the host's network as
// the mode allows), a session is one-shot runs, and /tmp is the host's.
func (p *Provider) Traits() confine.Traits {
	return confine.Traits{Sessions: confine.SessionsRuns, Scratch: confine.ScratchHost}
}

// Available reports whether this kernel has Landlock, once.
func (p *Provider) Available() error {
	p.once.Do(func() {
		if p.opts.ForceUnavailable != "" {
			p.avail = &confine.BackendUnavailable{Backend: Name, Reason: p.opts.ForceUnavailable}
			return
		}
		if abi := ABI(); abi < 1 {
			p.avail = &confine.BackendUnavailable{Backend: Name, Reason: "the kernel has no Landlock (ABI 0: not built in, or not in the lsm= boot list)"}
		}
	})
	return p.avail
}

// Dialect is how this backend's denials read: Landlock says EACCES, the
// seccomp filter EPERM (and EACCES for refused sockets).
var Dialect = outcome.Dialect{
	Backend:          Name,
	DenialSignatures: []string{"Permission denied", "Operation not permitted"},
}

// Confine implements confine.Provider.
func (p *Provider) Confine(req confine.Request) (*confine.Cmd, error) {
	pol := req.Policy
	switch {
	case pol == nil || len(req.Argv) == 0:
		return nil, fmt.Errorf("%w: a command and a policy are required", policy.ErrPolicy)
	case !pol.Confining():
		return nil, confine.ErrNotConfining
	}
	if err := p.Available(); err != nil {
		return nil, err
	}
	vp := viewplan.New(pol) // once: newPlan, keepExisting and enforce read it
	plan := withHome(keepExisting(vp, newPlan(vp), exists), pol, req.Home)
	dir := req.Dir
	if dir == "" {
		dir = pol.Root
	}
	env, set := req.Env, []string(nil)
	if req.Home != nil && req.Home.Cache != "" {
		env, set = confine.CacheEnv(req.Env, req.Home.Cache)
	}
	var dom *domainsSetup
	if isDomains(pol) {
		var err error
		if dom, err = prepareDomains(req); err != nil {
			return nil, err
		}
		httpPort, socksPort := dom.local.Ports()
		if p.opts.onProxy != nil {
			p.opts.onProxy(httpPort, socksPort)
		}
		plan = WithProxy(plan, httpPort, socksPort)
		env = netproxy.WithProxyEnvAt(env, httpPort, socksPort)
	}
	spec := &initproc.Spec{Argv: req.Argv, Dir: dir, Env: env,
		Landlock: plan.Landlock, Seccomp: plan.Seccomp, Subreaper: true,
		Nest: !p.opts.sharedDomain, GoExecStage: p.opts.goExecStage}
	// A session of its own: no controlling terminal to inject into, and a
	// process group run can kill (a descendant calling setsid escapes it:
	// reported as TreeKill process-group).
	cmd, err := initimage.NewCmd(spec, sysProcAttr())
	if err != nil {
		if dom != nil {
			dom.stop()
		}
		return nil, err
	}
	if dom != nil {
		dom.attach(cmd)
	}
	cmd.Backend = Name
	cmd.Enforcement = enforce(vp, plan, ABI())
	cmd.Enforcement.Reasons = append(cmd.Enforcement.Reasons, homeReasons(req, set)...)
	cmd.Dialect = Dialect
	cmd.TreeKill = confine.KillProcessGroup
	return cmd, nil
}

// exists reports whether a host path exists (not following a final link).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
