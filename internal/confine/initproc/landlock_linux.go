package initproc

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// applyLandlock restricts the init's main thread, the one the command is
// forked from, with spec's rules at the best ABI the kernel offers. Missing
// paths get no rule: there is nothing there to grant.
//
// Only this thread: before ABI 8, restricting every thread means one
// landlock_restrict_self per thread, i.e. sibling domains, and a domain
// may not trace or signal a sibling. The init's other threads (the
// unix-socket supervisor, which reads the command's memory, and the
// signal forwarder) must reach the command, so they stay outside any
// domain; the command cannot reach them (its domain is nested, seccomp
// refuses ptrace, and the init is not dumpable).
//
// From ABI 8 one landlock_restrict_self can put every thread in the same
// domain (TSYNC): then the whole init is restricted, the supervisor
// included, and its connects on the command's behalf are scoped too.
func applyLandlock(spec *Landlock) error {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if spec.Required {
			return errors.New("landlock is not available")
		}
		return nil
	}
	cfg := landlock.V11.BestEffort()
	if !spec.RestrictTCP {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := rulesetFD(cfg, spec)
	if err != nil || fd < 0 {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	if abi >= 8 {
		// One domain for every thread; no_new_privs is set on all of them
		// by the kernel when this succeeds.
		flags |= ll.FlagRestrictSelfTSync
	}
	return ll.LandlockRestrictSelf(fd, flags)
}

// rulesetFD builds the ruleset. An entry listed for a per-entry grant can
// vanish before it is opened (the host keeps changing): it is then no
// longer there to grant, so the rules are listed again, a few times.
func rulesetFD(cfg landlock.Config, spec *Landlock) (fd int, flags uint32, err error) {
	for range 5 {
		var rules []landlock.Rule
		if rules, err = landlockRules(spec); err != nil {
			continue
		}
		if fd, flags, err = cfg.NewRulesetFD(rules...); !errors.Is(err, unix.ENOENT) {
			return fd, flags, err
		}
	}
	return -1, 0, err
}

func landlockRules(spec *Landlock) ([]landlock.Rule, error) {
	var rules []landlock.Rule
	dirs, files := existing(spec.Read)
	for _, f := range files {
		rules = append(rules, landlock.ROFiles(f))
	}
	grants, err := ExpandCarved(dirs, withTargets(spec.ReadCarved), listDir)
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		switch {
		case g.OnPath:
			rules = append(rules, landlock.PathAccess(ll.AccessFSReadDir, g.Path))
		case g.Dir:
			rules = append(rules, landlock.RODirs(g.Path))
		default:
			rules = append(rules, landlock.ROFiles(g.Path))
		}
	}
	dirs, files = existing(spec.Write)
	for _, f := range files {
		rules = append(rules, landlock.RWFiles(f).WithIoctlDev())
	}
	if grants, err = ExpandCarved(dirs, withTargets(spec.Carved), listDir); err != nil {
		return nil, err
	}
	for _, g := range grants {
		switch {
		case g.OnPath:
		case g.Dir:
			rules = append(rules, landlock.RWDirs(g.Path).WithRefer().WithIoctlDev())
		default:
			rules = append(rules, landlock.RWFiles(g.Path).WithIoctlDev())
		}
	}
	if spec.RestrictTCP {
		for _, port := range spec.ConnectTCP {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	for _, p := range spec.UnixSockets {
		if _, ok := kind(p); ok {
			rules = append(rules, landlock.ROFiles(p).WithResolveUnix())
		}
	}
	return rules, nil
}

// existing splits paths into directories and other files, leaving out
// what does not exist.
func existing(paths []string) (dirs, files []string) {
	for _, p := range paths {
		switch dir, ok := kind(p); {
		case ok && dir:
			dirs = append(dirs, p)
		case ok:
			files = append(files, p)
		}
	}
	return dirs, files
}

// kind stats p (following links, as Landlock's own open does).
func kind(p string) (dir, ok bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return false, false
	}
	return fi.IsDir(), true
}

// withTargets adds to carved the real path of each carve-out that goes
// through a symlink (~/.kube -> dotfiles/kube, as stow links them).
// Landlock rules hold inodes, not names: carving the link's name alone
// leaves its target granted with the directory around it. A mount (the
// other backends) follows the link and hides the target by any name.
func withTargets(carved []string) []string {
	out := carved
	for _, c := range carved {
		if real, err := filepath.EvalSymlinks(c); err == nil && real != c {
			out = append(out[:len(out):len(out)], real)
		}
	}
	return out
}

func listDir(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		out = append(out, Entry{Name: de.Name(), Dir: de.IsDir(), Link: de.Type()&os.ModeSymlink != 0})
	}
	return out, nil
}

// threadConfine returns what seccomp.Rules.Confine needs where Landlock is
// per thread (ABI < 8): a function that puts the calling thread in the
// command's Landlock domain (no_new_privs first, which is per thread too),
// so a call the supervisor performs for the command is bounded by the
// command's rules. The ruleset is built once, now, before the command
// starts, and kept open (the kernel makes it close-on-exec). From ABI 8
// the init is one domain already: nil. Without Landlock it is an error:
// the guard would otherwise act unconfined.
func threadConfine(spec *Landlock) (func() error, error) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return nil, errors.New("the create guard needs Landlock to confine its own threads")
	}
	if abi >= 8 {
		return nil, nil
	}
	cfg := landlock.V11.BestEffort()
	if !spec.RestrictTCP {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := rulesetFD(cfg, spec)
	if err != nil {
		return nil, err
	}
	if fd < 0 {
		return nil, errors.New("no Landlock ruleset for the guard's threads")
	}
	return func() error {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return err
		}
		return ll.LandlockRestrictSelf(fd, flags)
	}, nil
}
