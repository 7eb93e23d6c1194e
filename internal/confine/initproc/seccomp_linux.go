package initproc

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"github.com/ringfence/ringfence/policy"
)

// installSeccomp loads the shared filter on the init's main thread, which
// the command is forked from and inherits it from (the supervisor, on the
// init's other threads, stays unfiltered), and, when asked, the filter
// refusing IP sockets. Filters stack; the stricter verdict wins. With
// DenyUnixConnect it returns the listener the init must supervise.
func installSeccomp(spec *Seccomp) (*os.File, error) {
	if spec.DenyInet || len(spec.ProxyPorts) > 0 {
		inet, err := InetFilter()
		if len(spec.ProxyPorts) > 0 {
			inet, err = ProxyInetFilter()
		}
		if err != nil {
			return nil, err
		}
		if _, err := seccomp.Install(inet, seccomp.ThisThread); err != nil {
			return nil, err
		}
	}
	names := len(spec.NameRoots) > 0
	prog, err := seccomp.Build(seccomp.Options{DenyUnixConnect: spec.DenyUnixConnect,
		GuardCreate: len(spec.Protected) > 0 || names, GuardWrite: names || spec.GuardRemove,
		GuardRemove: spec.GuardRemove, GuardMeta: spec.GuardMeta, GuardListen: len(spec.ProxyPorts) > 0})
	if err != nil {
		return nil, err
	}
	return seccomp.Install(prog, seccomp.ThisThread)
}

// supervise answers the command's supervised calls until ctx ends: a unix
// socket under one of spec.AllowUnix (as the view names it) connects, any
// other is refused with EACCES; no name is created at or beneath a
// protected path.
func supervise(ctx context.Context, listener *os.File, spec *Seccomp, lock *Landlock) error {
	if listener == nil {
		return nil
	}
	allow := under(spec.AllowUnix)
	rules := seccomp.Rules{AllowUnix: allow}
	if len(spec.Protected) > 0 {
		rules = seccomp.Protect(withRealPaths(spec.Protected)).Rules(allow)
		rules.KeepAncestors = spec.GuardRemove
	}
	if len(spec.NameRoots) > 0 {
		rules.Names = &seccomp.NameGuard{Roots: spec.NameRoots, Names: spec.Names}
	}
	if spec.ConfineGuard {
		confine, err := threadConfine(lock)
		if err != nil {
			return err
		}
		rules.Confine = confine
	}
	metaRules(&rules, spec)
	if len(spec.ProxyPorts) > 0 {
		if !spec.DenyUnixConnect {
			return errors.New("the proxy-only network needs connect supervision (DenyUnixConnect)")
		}
		rules.InetConnect = seccomp.ProxyOnly(spec.ProxyPorts...)
	}
	// Checked here, before the command exists: a supervisor that cannot
	// start would leave the command blocked in its first supervised call.
	if err := seccomp.CheckProc(); err != nil {
		return err
	}
	go func() {
		// Should it stop on its own anyway, no call could be answered:
		// end the init (and, as pid 1 or through the parent-death path,
		// the tree) rather than leave the command hanging.
		if err := seccomp.Supervise(ctx, listener, rules); err != nil && ctx.Err() == nil {
			os.Exit(ExitSetup)
		}
	}()
	return nil
}

// under returns a rule allowing paths at or beneath any of roots.
func under(roots []string) func(string) bool {
	return func(path string) bool {
		for _, a := range roots {
			if policy.Contains(a, path) {
				return true
			}
		}
		return false
	}
}

// metaRules adds the metadata and peer rules. Without a pid namespace
// (the landlock backend: the init is a subreaper) a peer belongs to the
// sandbox when it descends from the init; with one, when the init can see
// it at all.
func metaRules(rules *seccomp.Rules, spec *Seccomp) {
	if spec.GuardMeta {
		writable, carved := under(spec.MetaWritable), under(spec.MetaCarved)
		rules.MetaWritable = func(path string) bool { return writable(path) && !carved(path) }
	}
	if spec.PeerCheck {
		rules.AllowUnixHost = under(spec.UnixHost)
		rules.PeerCheckAbstract = spec.PeerCheckAbstract
		rules.PeerInside = seccomp.PeerInPidNamespace
		if os.Getpid() != 1 { // no pid namespace of our own
			rules.PeerInside, rules.PeerHeld = seccomp.PeerDescendant(), seccomp.DescendantHolds()
		}
	}
}

// withRealPaths adds, for each path that reaches its target through a
// symlink, the real path too: the guard compares the real paths of what
// it resolves, so a protected path named through a link must be known by
// its real name as well.
func withRealPaths(paths []string) []string {
	out := append([]string{}, paths...)
	for _, p := range paths {
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			out = append(out, real)
		}
	}
	return out
}
