package execpolicy

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// call classifies a simple command: its program and arguments, the
// substitutions inside its words and its variable assignments.
func (w *walker) call(x *syntax.CallExpr, depth int) Classification {
	var parts []Classification
	argv := make([]string, 0, len(x.Args))
	for _, a := range x.Args {
		argv = append(argv, wordValues(a)...)
	}
	switch {
	case len(argv) == 0:
		parts = append(parts, w.s.leaf(Observe, "sh", "sets shell variables"))
	case w.funcs[argv[0]]:
		parts = append(parts, w.s.leaf(Use, argv[0], "calls a function this script defines (its body is classified where it is defined)"))
	default:
		parts = append(parts, w.s.argv(argv, depth+1))
		w.noteCd(argv)
	}
	for _, a := range x.Args {
		parts = append(parts, w.substs(a, depth)...)
	}
	for _, a := range x.Assigns {
		parts = append(parts, w.assign(a, depth)...)
	}
	return aggregate(parts)
}

// hijackVars() change which program runs or inject code into every program
// that starts: after setting one, no program name in the command can be
// trusted.
var hijackVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
		"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "BASH_ENV": true, "ENV": true,
		"IFS": true, "PROMPT_COMMAND": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true,
		"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_EXEC_PATH": true, "GIT_ASKPASS": true,
		"GIT_PAGER": true, "GIT_EDITOR": true, "GIT_EXTERNAL_DIFF": true, "GIT_CONFIG_GLOBAL": true,
		"GIT_CONFIG_SYSTEM": true, "GIT_CONFIG_COUNT": true, "GIT_PROXY_COMMAND": true, "GIT_DIR": true,
		"PAGER": true, "EDITOR": true, "VISUAL": true, "NODE_OPTIONS": true, "PYTHONSTARTUP": true,
		"PYTHONPATH": true, "PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true, "RUBYLIB": true,
		"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
		"LESSOPEN": true, "LESSCLOSE": true, "MANPAGER": true, "BROWSER": true, "RUSTC_WRAPPER": true,
		"CC": true, "CXX": true, "GOFLAGS": true, "ZDOTDIR": true,
	}
})

// hijackVar reports whether setting name to value redirects execution.
// PATH is allowed when it only names system directories ahead of the
// inherited $PATH: appending after it only adds fallbacks.
func hijackVar(name, value string) bool {
	if name == "PATH" {
		for _, dir := range strings.Split(value, ":") {
			if dir == dynMark+"$PATH" {
				return false
			}
			if !systemDirs()[strings.TrimRight(dir, "/")] {
				return true
			}
		}
		return false
	}
	return hijackVars()[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_") || strings.HasPrefix(name, "BASH_FUNC_")
}

func (w *walker) assign(a *syntax.Assign, depth int) []Classification {
	var parts []Classification
	if a.Name != nil && !a.Naked && hijackVar(a.Name.Value, assignValue(a)) {
		parts = append(parts, w.s.leaf(Unknown, a.Name.Value, "sets "+a.Name.Value+", which changes what programs run"))
	}
	if a.Value != nil {
		parts = append(parts, w.substs(a.Value, depth)...)
	}
	if a.Array != nil {
		parts = append(parts, w.substs(a.Array, depth)...)
	}
	if a.Index != nil {
		parts = append(parts, w.substs(a.Index, depth)...)
	}
	return parts
}

// redirect classifies a redirection: a write to a file is at least modify,
// a read of a secret is credential, and the words' substitutions count.
func (w *walker) redirect(r *syntax.Redirect, depth int) []Classification {
	var parts []Classification
	if r.Word != nil {
		parts = append(parts, w.substs(r.Word, depth)...)
	}
	if r.Hdoc != nil {
		parts = append(parts, w.substs(r.Hdoc, depth)...)
	}
	if r.Word == nil {
		return parts
	}
	target := wordValue(r.Word)
	op := r.Op.String()
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		if target == "-" || strings.Trim(target, "0123456789") == "" {
			return parts // >&2, >&-
		}
	case syntax.RdrIn:
		if credentialPath(target) {
			parts = append(parts, w.s.leaf(Credential, "<", "reads a secret: "+progLabel(target)))
		}
		return parts
	default:
		return parts
	}
	if c, reason, ok := writeTarget(target); ok {
		parts = append(parts, w.s.leaf(c, op, "redirection "+reason))
	}
	return parts
}

// wordValue is what a word becomes when the shell runs it, as far as that
// is known before it runs. A part only known then (a parameter, a
// substitution, a brace expansion) is written as dynMark and a label.
func wordValue(word *syntax.Word) string {
	if vals := wordValues(word); len(vals) == 1 {
		return vals[0]
	}
	return dynMark + "{…}"
}

// maxBraceWords bounds what one word may brace-expand into.
const maxBraceWords = 64

// wordValues is wordValue with brace expansion, which turns one word into
// several ({rm,-rf,/} is three words). An expansion past maxBraceWords is
// a single run-time value.
func wordValues(word *syntax.Word) []string {
	cp := &syntax.Word{Parts: word.Parts} // a copy: syntax.Walk cannot read the BraceExp nodes splitting leaves
	if !syntax.SplitBraces(cp) {
		return []string{plainValue(word)}
	}
	var out []string
	for w, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) == maxBraceWords {
			return []string{dynMark + "{…}"}
		}
		out = append(out, plainValue(w))
	}
	return out
}

// plainValue is a word's value without brace expansion.
func plainValue(word *syntax.Word) string {
	var b strings.Builder
	for _, p := range word.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, false))
		case *syntax.SglQuoted:
			if x.Dollar && strings.Contains(x.Value, `\`) {
				b.WriteString(dynMark + "$'…'")
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			dblValue(&b, x)
		default:
			b.WriteString(dynPart(p))
		}
	}
	return b.String()
}

func dblValue(b *strings.Builder, q *syntax.DblQuoted) {
	for _, p := range q.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			b.WriteString(unescape(l.Value, true))
			continue
		}
		b.WriteString(dynPart(p))
	}
}

// dynPart labels a part whose value is only known at run time.
func dynPart(p syntax.WordPart) string {
	if pe, ok := p.(*syntax.ParamExp); ok && pe.Param != nil {
		return dynMark + "$" + pe.Param.Value
	}
	return dynMark + "$(…)"
}

// unescape removes the backslashes the shell removes: any escaped byte
// outside quotes, and only \ $ ` " and newline inside double quotes.
func unescape(s string, dbl bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		if dbl && !strings.ContainsRune("\\$`\"\n", rune(next)) {
			b.WriteByte('\\')
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

func assignValue(a *syntax.Assign) string {
	if a.Value == nil {
		return ""
	}
	return wordValue(a.Value)
}

// noteCd records a cd or pushd that may leave the working tree: to an
// absolute path, the home directory, a parent, the previous directory or a
// run-time value.
func (w *walker) noteCd(argv []string) {
	if argv[0] != "cd" && argv[0] != "pushd" && argv[0] != "popd" {
		return
	}
	t := first(operands(argv[1:], nil))
	if t == "" || argv[0] == "popd" || t == "-" || isDynamic(t) || strings.HasPrefix(t, "/") ||
		strings.HasPrefix(t, "~") || t == ".." || strings.HasPrefix(t, "../") {
		w.s.leftTree = true
	}
}
