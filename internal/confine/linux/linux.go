package linux

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/domainnet"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/homestate"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Name is the backend's name.
const Name = "linux"

// Options configures the backend.
type Options struct {
	// ForceUnavailable, when set, makes Available fail with this reason
	// without probing: how tests and `ringfence doctor --simulate` show a
	// host without user namespaces.
	ForceUnavailable string
	// Quick makes Available check only the kernel's switches for user
	// namespaces instead of starting a probe process: for a one-shot CLI,
	// where the probe would double the start-up cost. A host that refuses
	// the namespaces anyway still fails closed, when Start's clone fails
	// or the init reports a failed set-up stage.
	Quick bool
	// Degraded, with Quick, are the steps an earlier full probe of this
	// host found refused (ringfence's probe cache keeps them): a quick
	// check cannot find them itself. A wrong record fails closed — the
	// init reports the refused step — never runs anything unconfined.
	Degraded Degraded
	// NoHomeOverlay, when set, is why the home overlay is not used (tests
	// and simulations); the cache fallback is used instead.
	NoHomeOverlay string
}

// HomeCacheView is where the home cache fallback is bound in the view.
const HomeCacheView = "/tmp/.ringfence-cache"

// Provider is the linux backend.
type Provider struct {
	opts  Options
	once  sync.Once
	avail error
	// degraded: the steps this host refuses though the namespaces work
	// (a container); found by the probe, named in every run's reasons.
	degraded Degraded
}

// New returns the linux backend.
func New(opts Options) confine.Provider { return &Provider{opts: opts} }

// Name implements confine.Provider.
func (p *Provider) Name() string { return Name }

// Traits implements confine.Provider: its own pid and network namespaces,
// one init per session, and a private /tmp (read-only in read-only mode).
func (p *Provider) Traits() confine.Traits {
	return confine.Traits{Namespaces: true, Sessions: confine.SessionsInit, Scratch: confine.ScratchPrivate}
}

// Available probes this host once: it really starts the init in new user,
// mount and pid namespaces and has it build a view, so a "yes" means the
// mechanism works here, not merely that the kernel has it.
func (p *Provider) Available() error {
	p.once.Do(func() {
		if p.opts.ForceUnavailable != "" {
			p.avail = unavailable("%s", p.opts.ForceUnavailable)
			return
		}
		if p.opts.Quick {
			p.degraded = p.opts.Degraded
			p.avail = quickCheck()
			return
		}
		p.degraded, p.avail = probe()
	})
	return p.avail
}

// Degraded reports the steps Available found refused here (see Degraded).
func (p *Provider) Degraded() Degraded {
	_ = p.Available()
	return p.degraded
}

// unavailable says why the backend cannot run here.
func unavailable(format string, args ...any) error {
	return &confine.BackendUnavailable{Backend: Name, Reason: fmt.Sprintf(format, args...)}
}

// Dialect is how this backend's denials read on the command's stderr.
var Dialect = outcome.Dialect{
	Backend:          Name,
	DenialSignatures: []string{"Read-only file system", "Permission denied", "Operation not permitted"},
}

// Confine implements confine.Provider.
func (p *Provider) Confine(req confine.Request) (*confine.Cmd, error) {
	pol := req.Policy
	switch {
	case pol == nil || (len(req.Argv) == 0 && !req.Session):
		return nil, fmt.Errorf("%w: a command and a policy are required", policy.ErrPolicy)
	case !pol.Confining():
		return nil, confine.ErrNotConfining
	}
	if err := p.Available(); err != nil {
		return nil, err
	}
	vo := ViewOptions{MountPath: req.MountPath, Home: req.Home, HostProc: p.degraded.HostProc,
		ScratchBytes: confine.ScratchSize(pol.Limits.ScratchBytes, confine.HostRAM())}
	env, homeReason := req.Env, ""
	removeWork := func() {}
	confined := false
	defer func() {
		if !confined {
			removeWork()
		}
	}()
	if req.Home != nil {
		why := p.opts.NoHomeOverlay
		if why == "" {
			why = overlayUnsupported(req.Home.Upper)
		}
		if why == "" {
			why = homeSubmounts(req.Home.Dir)
		}
		if why == "" {
			// Each run gets its own overlay work directory (see
			// homestate.NewRunWork); it is removed once the run is reaped.
			work, remove, err := homestate.NewRunWork(req.Home.Work, req.Home.Upper)
			if err != nil {
				return nil, err
			}
			removeWork = remove
			h := *req.Home
			h.Work = work
			vo.Home = &h
		} else {
			vo.HomeCacheAt = HomeCacheView
			var set []string
			env, set = confine.CacheEnv(req.Env, HomeCacheView)
			homeReason = "no private home layer (" + why + "): home stays read-only; " +
				strings.Join(set, ", ") + " point at a private cache directory of this workspace"
		}
	}
	if err := confine.CheckMountPath(pol, req.MountPath); err != nil {
		return nil, err
	}
	plan := Guard(NewPlanWith(pol, vo), exists)
	dir := req.Dir
	if dir == "" {
		dir = pol.Root
	}
	dir = plan.Mount.View(dir)
	spec := &initproc.Spec{
		Argv: req.Argv, Dir: dir, Env: env,
		View: &plan.View, Loopback: plan.Loopback, Hostname: Hostname,
		Landlock: plan.Landlock, Seccomp: plan.Seccomp, Session: req.Session,
	}
	if p.degraded.NoHostname {
		spec.Hostname = "" // refused here: the UTS namespace keeps the container's name
	}
	spec.DenyVsock = plan.NewNet // vsock is not namespaced
	var dom *domainnet.Setup
	var err error
	if isDomains(pol) {
		if dom, err = prepareDomains(req, spec); err != nil {
			return nil, err
		}
	}
	attr := sysProcAttr(plan.NewNet)
	if dom != nil {
		withBindService(attr)
	}
	cmd, err := initimage.NewCmd(spec, attr)
	if err != nil {
		if dom != nil {
			dom.Close()
		}
		return nil, err
	}
	if dom != nil {
		attachDomains(dom, cmd)
	}
	if req.Session {
		if err := attachControl(cmd, spec); err != nil { // session.go
			cmd.Cleanup()
			return nil, err
		}
	}
	if err := gate(cmd); err != nil { // gate.go: after every numbered descriptor
		cmd.Cleanup()
		return nil, err
	}
	cmd.Backend = Name
	cmd.Enforcement = Enforce(pol, plan, exists)
	if homeReason != "" {
		cmd.Enforcement.Reasons = append(cmd.Enforcement.Reasons, homeReason)
	}
	cmd.Enforcement.Reasons = append(cmd.Enforcement.Reasons, p.degraded.Reasons()...)
	cmd.Dialect = Dialect
	cmd.TreeKill = confine.KillPidNamespace
	cleanup := cmd.Cleanup
	cmd.Cleanup = func() {
		if cleanup != nil {
			cleanup()
		}
		removeWork()
	}
	confined = true
	return cmd, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}
