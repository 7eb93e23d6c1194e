package execpolicy

import (
	"strings"
	"sync"
)

// table maps a program's name to the handler that judges it. It is filled
// once, on the first classification, by the register functions of the
// files named table_*.go, and only read afterwards. Not at package
// initialisation: every ringfence process (the CLI for `version`, the
// sandbox init) would pay for a table only classification reads
// (cmd/ringfence's TestPackageInitIsLazy).
var (
	table     map[string]handler
	tableOnce sync.Once
)

// lookup returns the handler judging the program name.
func lookup(name string) (handler, bool) {
	tableOnce.Do(buildTable)
	h, ok := table[name]
	return h, ok
}

func buildTable() {
	table = map[string]handler{}
	registerDev()
	registerFs()
	registerGit()
	registerSys()
	registerText()
	registerWrap()
}

func register(h handler, names ...string) {
	for _, n := range names {
		if _, dup := table[n]; dup {
			panic("execpolicy: " + n + " registered twice")
		}
		table[n] = h
	}
}

// fixed judges every invocation of a program the same way.
func fixed(c Capability, reason string) handler {
	return func(*state, []string, int) (verdict, []Classification) {
		return verdict{cap: c, reason: reason}, nil
	}
}

// flagged judges a program as base unless one of the flags (exact, a long
// flag's "--flag=" form, or a short flag inside a cluster such as -ni) is
// given, in which case it is c.
func flagged(base verdict, c Capability, reason string, flags ...string) handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		if hasAny(argv[1:], flags...) {
			return verdict{cap: c, reason: reason}, nil
		}
		return base, nil
	}
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// hasAny reports whether args carry one of flags before "--". A one-letter
// flag ("-i") also matches inside a cluster of letters ("-ni", "-pi").
func hasAny(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			if a == f || strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=") {
				return true
			}
			if len(f) == 2 && f[0] == '-' && inCluster(a, f[1]) {
				return true
			}
		}
	}
	return false
}

// inCluster reports whether a is a cluster of short flags containing c.
func inCluster(a string, c byte) bool {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for i := 1; i < len(a); i++ {
		ch := a[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z') {
			return false
		}
	}
	return strings.IndexByte(a[1:], c) >= 0
}

// skipOpts returns the words after a program's leading options: from "--"
// or the first word that is not an option. withArg names the options that
// take the next word as their value.
func skipOpts(args []string, withArg map[string]bool) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[i+1:]
		}
		if len(a) < 2 || a[0] != '-' {
			return args[i:]
		}
		if withArg[a] {
			i++
		}
	}
	return nil
}

// operands returns every word that is not an option, wherever it appears.
func operands(args []string, withArg map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case len(a) >= 2 && a[0] == '-':
			if withArg[a] {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// first returns the first word of args, or "".
func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// subcommands judges programs of the form "prog [global options] sub …".
type subcommands struct {
	globalArg map[string]bool    // global options taking a value
	subs      map[string]verdict // by subcommand
	none      verdict            // no subcommand given
	other     verdict            // a subcommand not in subs
}

func (sc subcommands) handler() handler {
	return func(_ *state, argv []string, _ int) (verdict, []Classification) {
		return sc.judge(argv[1:]), nil
	}
}

func (sc subcommands) judge(args []string) verdict {
	rest := skipOpts(args, sc.globalArg)
	if len(rest) == 0 {
		return sc.none
	}
	if v, ok := sc.subs[rest[0]]; ok {
		return v
	}
	return sc.other
}

// subs builds a subcommand map from groups of names sharing a verdict.
func subs(groups ...subGroup) map[string]verdict {
	m := map[string]verdict{}
	for _, g := range groups {
		for _, n := range strings.Fields(g.names) {
			m[n] = g.v
		}
	}
	return m
}

type subGroup struct {
	names string
	v     verdict
}

func v(c Capability, reason string) verdict { return verdict{cap: c, reason: reason} }

func knownPrograms() int { tableOnce.Do(buildTable); return len(table) }
