package policyfile

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/policy"
)

// Base is a complete policy as the CLI assembles it from files: the
// deployment defaults (Root set), the command classification config and
// the environment policy. An untrusted file is measured against one.
type Base struct {
	Defaults policy.Defaults
	Exec     execpolicy.Config
	Env      policy.Env
	// HomeShare are the caches under home shared with the host ([home]
	// share): only a trusted file or the user's own may set them.
	HomeShare []string
}

// WideningError is an untrusted policy file that asks for more than the
// policy it would narrow: every way it widens, for a person to read.
type WideningError struct {
	File   string
	Widens []string
}

func (e *WideningError) Error() string {
	return fmt.Sprintf("policy file %s is not trusted and asks for more than your own policy: %s",
		e.File, strings.Join(e.Widens, "; "))
}

// Unwrap makes a WideningError a policy.ErrPolicy.
func (e *WideningError) Unwrap() error { return policy.ErrPolicy }

// narrowKeys are the key paths an untrusted file may set: each one is
// measured below. Any other key — one a later version of the schema adds —
// is refused until it is measured here too (fail closed).
var narrowKeys = []string{
	"mode", "baseline", "network", "network.mode", "network.domains",
	"network.allow", "network.deny", "network.reasons",
	"entry", "entry[]", "entry[].path", "entry[].access",
	"protect_git", "protected", "protected_names", "allow_aliased_writes", "unix_sockets",
	"limits", "limits.wall_clock", "limits.memory", "limits.processes", "limits.cpu_time", "limits.tmp_size",
	"env", "env.pass", "env.clear", "env.set", "exec",
}

func narrowKey(k string) bool {
	return slices.Contains(narrowKeys, k) || strings.HasPrefix(k, "exec.") || strings.HasPrefix(k, "env.set.") || strings.HasPrefix(k, "network.reasons.")
}

// Narrow applies an untrusted file (a workspace's own .ringfence.toml) to
// base. The file may only narrow: a lower mode, a narrower network, lower
// limits, read or deny restrictions (intersection, never a grant), more
// protected names, a stricter baseline, protect_git or exec table, fewer
// unix sockets, a clear environment. Mode, network and limits are judged by
// policy.Resolve exactly as a request is. Anything wider is a
// *WideningError naming every widening; base is never changed.
func (f *File) Narrow(base Base) (Base, error) {
	root := base.Defaults.Root
	out := Base{Defaults: base.Defaults, Exec: base.Exec, Env: base.Env, HomeShare: base.HomeShare}
	d := &out.Defaults
	d.Entries = slices.Clone(d.Entries)
	d.Restrictions = slices.Clone(d.Restrictions)
	d.ExtraProtected = slices.Clone(d.ExtraProtected)
	d.ExtraProtectedNames = slices.Clone(d.ExtraProtectedNames)
	var w []string
	keys := make([]string, 0, len(f.keys))
	for k := range f.keys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !narrowKey(k) {
			w = append(w, k+" (not a setting an untrusted file may use)")
		}
	}
	req, rw := f.request(base.Defaults)
	w = append(w, rw...)
	if len(rw) == 0 {
		p, err := policy.Resolve(req, base.Defaults)
		if err != nil {
			return base, err
		}
		d.Mode, d.Network, d.Limits = p.Mode, p.Network, p.Limits
	}
	w = append(w, f.narrowFiles(d, root)...)
	var err error
	var ew []string
	if out.Exec, ew, err = f.narrowExec(base.Exec); err != nil {
		return base, err
	}
	w = append(w, ew...)
	var vw []string
	if out.Env, vw, err = f.narrowEnv(base.Env); err != nil {
		return base, err
	}
	w = append(w, vw...)
	if len(w) > 0 {
		return base, &WideningError{File: f.Path, Widens: w}
	}
	if err := d.Check(); err != nil {
		return base, err
	}
	return out, nil
}

// request is the file's mode, network and limits as a policy.Request.
// Each axis is first resolved alone so every widening is named, not just
// the first.
func (f *File) request(base policy.Defaults) (policy.Request, []string) {
	var req policy.Request
	var w []string
	check := func(r policy.Request, what string) {
		if _, err := policy.Resolve(r, base); err != nil {
			var esc *policy.EscalationError
			if errors.As(err, &esc) {
				w = append(w, what)
				return
			}
			w = append(w, what+" ("+err.Error()+")")
		}
	}
	if f.Mode != nil {
		req.Mode = f.Mode
		check(policy.Request{Mode: f.Mode}, fmt.Sprintf("mode %s (yours: %s)", f.Mode, base.Mode))
	}
	if f.Sets("network") {
		n := f.Network.Policy()
		req.Network = &n
		check(policy.Request{Network: &n}, fmt.Sprintf("network %s (yours: %s)", networkText(n), networkText(base.Network)))
	}
	l := policy.Limits{WallClock: time.Duration(f.Limits.WallClock), MemoryBytes: int64(f.Limits.Memory), Processes: f.Limits.Processes,
		CPUTime: time.Duration(f.Limits.CPUTime), ScratchBytes: int64(f.Limits.TmpSize)}
	req.Limits = &l
	for _, one := range []struct {
		key string
		l   policy.Limits
	}{
		{"wall_clock", policy.Limits{WallClock: l.WallClock}}, {"memory", policy.Limits{MemoryBytes: l.MemoryBytes}},
		{"processes", policy.Limits{Processes: l.Processes}}, {"cpu_time", policy.Limits{CPUTime: l.CPUTime}},
		{"tmp_size", policy.Limits{ScratchBytes: l.ScratchBytes}},
	} {
		if f.Sets("limits." + one.key) {
			check(policy.Request{Limits: &one.l}, "limits."+one.key+" higher than yours")
		}
	}
	return req, w
}

func networkText(n policy.Network) string {
	if n.Mode == policy.NetDomains {
		return n.Mode.String() + " [" + strings.Join(n.Domains, ", ") + "]"
	}
	return n.Mode.String()
}

// gitRank orders protect_git by how much it protects.
var gitRank = map[policy.GitProtection]int{policy.GitWritable: 0, policy.GitDefault: 1, policy.GitReadOnly: 2}

// narrowFiles measures the file-access settings other than the mode and
// applies those that narrow to d.
func (f *File) narrowFiles(d *policy.Defaults, root string) []string {
	var w []string
	if f.Baseline != nil {
		if *f.Baseline > d.Baseline {
			w = append(w, fmt.Sprintf("baseline %s (yours: %s)", *f.Baseline, d.Baseline))
		} else {
			d.Baseline = *f.Baseline
		}
	}
	for i, e := range f.Entries {
		field := "entry[" + strconv.Itoa(i) + "]"
		p, err := f.expand(field, e.Path, root)
		switch {
		case err != nil:
			w = append(w, field+" ("+err.Error()+")")
		case e.Access == nil:
			w = append(w, field+" has no access")
		case *e.Access == policy.Write:
			w = append(w, fmt.Sprintf("%s grants write to %s", field, p))
		default:
			d.Restrictions = append(d.Restrictions, policy.Entry{Path: p, Access: *e.Access})
		}
	}
	// "default" and an omitted protect_git read the same: both keep yours.
	if f.ProtectGit != policy.GitDefault {
		if gitRank[f.ProtectGit] < gitRank[d.ProtectGit] {
			w = append(w, fmt.Sprintf("protect_git %s (yours: %s)", f.ProtectGit, gitName(d.ProtectGit)))
		} else {
			d.ProtectGit = f.ProtectGit
		}
	}
	d.ExtraProtected = append(d.ExtraProtected, f.Protected...)
	d.ExtraProtectedNames = append(d.ExtraProtectedNames, f.ProtectedNames...)
	if f.Sets("allow_aliased_writes") {
		if f.AllowAliasedWrites && !d.AllowAliasedWrites {
			w = append(w, "allow_aliased_writes = true (yours: false)")
		}
		d.AllowAliasedWrites = f.AllowAliasedWrites
	}
	if f.Sets("unix_sockets") {
		var keep []string
		for _, s := range f.UnixSockets {
			p, err := f.expand("unix socket", s, root)
			switch {
			case err != nil:
				w = append(w, "unix_sockets ("+err.Error()+")")
			case !slices.Contains(d.UnixSockets, p):
				w = append(w, "unix socket "+p+" (not one yours allows)")
			default:
				keep = append(keep, p)
			}
		}
		d.UnixSockets = keep
	}
	return w
}

func gitName(g policy.GitProtection) string {
	if g == policy.GitDefault {
		return "default"
	}
	return string(g)
}

// narrowExec: the file's outcomes may only be stricter than base's, and
// its rules may only deny; they are checked before base's rules, so they
// narrow whatever base allows.
func (f *File) narrowExec(base execpolicy.Config) (execpolicy.Config, []string, error) {
	if len(f.Exec.Outcomes) == 0 && len(f.Exec.Rules) == 0 {
		return base, nil, nil
	}
	bc, err := base.Compile()
	if err != nil {
		return base, nil, err
	}
	have := bc.Outcomes()
	out := execpolicy.Config{Outcomes: map[string]string{}, Rules: append(slices.Clone(f.Exec.Rules), base.Rules...)}
	for k, v := range base.Outcomes {
		out.Outcomes[k] = v
	}
	var w []string
	names := make([]string, 0, len(f.Exec.Outcomes))
	for k := range f.Exec.Outcomes {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		c, okC := execpolicy.ParseCapability(k)
		o, okO := execpolicy.ParseOutcome(f.Exec.Outcomes[k])
		if !okC || !okO {
			continue // Compile below names it
		}
		if o < have[c] {
			w = append(w, fmt.Sprintf("exec.outcomes.%s = %s (yours: %s)", k, o, have[c]))
			continue
		}
		out.Outcomes[k] = f.Exec.Outcomes[k]
	}
	for i, r := range f.Exec.Rules {
		if r.Decision != "deny" {
			w = append(w, fmt.Sprintf("exec rule %d (%s) decides %q; an untrusted file's rules may only deny", i, strings.Join(r.Prefix, " "), r.Decision))
		}
	}
	if _, err := out.Compile(); err != nil {
		return base, nil, fmt.Errorf("%s: [exec]: %w", f.Path, err)
	}
	return out, w, nil
}

// narrowEnv: clear may be turned on, never off; pass may only name what
// base already passes, and then changes nothing (it is not added to Pass,
// which would skip the value checks — so under a clear the file turns on,
// an allow-listed name it passes stays out: narrower than asked, never
// wider); set is refused, as it is neither narrowing nor base's.
func (f *File) narrowEnv(base policy.Env) (policy.Env, []string, error) {
	if _, err := f.EnvPolicy(); err != nil {
		return base, nil, err
	}
	out := policy.Env{Clear: base.Clear, Pass: slices.Clone(base.Pass), Set: base.Set}
	var w []string
	if f.Env.Clear != nil {
		if !*f.Env.Clear && base.Clear {
			w = append(w, "env.clear = false (yours: true)")
		}
		out.Clear = out.Clear || *f.Env.Clear
	}
	for _, n := range f.Env.Pass {
		passed := slices.Contains(base.Pass, n) || (!base.Clear && policy.ClassifyEnv(n, "") == policy.EnvPass)
		if !passed {
			w = append(w, "env.pass "+clip(n)+" (a host variable yours does not pass)")
		}
	}
	if len(f.Env.Set) > 0 {
		w = append(w, "env.set (an untrusted file may not set variables)")
	}
	return out, w, nil
}
