package seccomp

import (
	"fmt"
	"strings"
)

// maxGitConfig bounds a git config file the guard reads to check: the
// files `git init`, `git config` and `git remote add` write are a few
// hundred bytes.
const maxGitConfig = 64 << 10

// gitKey is one entry of a git config file, names lower-cased as git
// compares them (the subsection keeps its case, as in git).
type gitKey struct {
	section, sub, key, value string
}

// gitConfigKeys is the allow-list of keys a sandboxed command may put in
// a git config file (a git directory's config or config.worktree, at any
// depth): what `git init`, `clone`, `config user.*`, `remote add`,
// `checkout -b --track` and `submodule` write, none of which names a
// program, a path git reads code from, or another config to include.
// Everything else — core.hooksPath, core.fsmonitor, core.sshCommand,
// core.pager, core.editor, include.path, includeIf, alias.*, filter.*,
// diff.*.textconv, credential.helper, remote.*.uploadpack, … — is
// refused, so a check by content cannot be talked into a key that runs
// code when the user's own git reads the file on the host.
var gitConfigKeys = map[string]map[string]bool{
	"core": {"repositoryformatversion": true, "filemode": true, "bare": true, "logallrefupdates": true,
		"ignorecase": true, "precomposeunicode": true, "symlinks": true, "autocrlf": true, "eol": true},
	"extensions": {"objectformat": true, "refstorage": true, "worktreeconfig": true},
	"user":       {"name": true, "email": true},
	"init":       {"defaultbranch": true},
	"remote":     {"url": true, "pushurl": true, "fetch": true, "tagopt": true, "prune": true},
	"branch":     {"remote": true, "merge": true, "rebase": true, "pushremote": true},
	"submodule":  {"url": true, "active": true},
}

// needSub are the sections whose keys exist only in a subsection
// (remote "origin"); core, user, init and extensions take none.
var needSub = map[string]bool{"remote": true, "branch": true, "submodule": true}

// checkGitConfig parses data strictly as git-config syntax and accepts it
// only if every key is on the allow-list with a harmless value. Strict
// means: only what git itself writes (no line continuations, no
// old-style [section.sub] headers, no control characters); anything the
// parser does not understand is refused, never skipped.
func checkGitConfig(data []byte) error {
	if len(data) > maxGitConfig {
		return fmt.Errorf("git config larger than %d bytes", maxGitConfig)
	}
	keys, err := parseGitConfig(string(data))
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := allowedGitKey(k); err != nil {
			return err
		}
	}
	return nil
}

func allowedGitKey(k gitKey) error {
	name := k.section + "." + k.key
	if k.sub != "" {
		name = k.section + ".<" + k.sub + ">." + k.key
	}
	if !gitConfigKeys[k.section][k.key] || needSub[k.section] != (k.sub != "") {
		return fmt.Errorf("git config key %s is not allowed", name)
	}
	if k.key == "url" || k.key == "pushurl" {
		v := strings.TrimSpace(k.value)
		// "<transport>::<address>" starts git-remote-<transport>: ext::
		// runs a shell command, fd:: and unknown helpers run programs.
		// A leading "-" could be read as an option by ssh.
		if strings.Contains(v, "::") || strings.HasPrefix(v, "-") || v == "" {
			return fmt.Errorf("git config %s = %q is not allowed", name, k.value)
		}
	}
	return nil
}

// parseGitConfig reads git-config syntax (git-config(1) "CONFIGURATION
// FILE"), strictly.
func parseGitConfig(s string) ([]gitKey, error) {
	var out []gitKey
	section, sub, inSection := "", "", false
	for n, line := range strings.Split(s, "\n") {
		fail := func(why string) ([]gitKey, error) {
			return nil, fmt.Errorf("git config line %d: %s", n+1, why)
		}
		line = strings.TrimSuffix(line, "\r")
		for _, c := range line {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return fail("control character")
			}
		}
		line = strings.TrimLeft(line, " \t")
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[':
			var err error
			if section, sub, err = parseGitSection(line); err != nil {
				return fail(err.Error())
			}
			inSection = true
			continue
		case !inSection:
			return fail("key before any section")
		}
		name, rest := line, ""
		if i := strings.IndexAny(line, " \t=#;"); i >= 0 {
			name, rest = line[:i], line[i:]
		}
		if !validGitName(name, false) {
			return fail("bad key name")
		}
		rest = strings.TrimLeft(rest, " \t")
		value := "true" // a bare key is a boolean true
		if rest != "" && rest[0] != '#' && rest[0] != ';' {
			if rest[0] != '=' {
				return fail("want = after the key")
			}
			var err error
			if value, err = parseGitValue(rest[1:]); err != nil {
				return fail(err.Error())
			}
		}
		out = append(out, gitKey{section: section, sub: sub, key: strings.ToLower(name), value: value})
	}
	return out, nil
}

// parseGitSection reads `[name]` or `[name "subsection"]`.
func parseGitSection(line string) (section, sub string, err error) {
	end := strings.LastIndexByte(line, ']')
	if end < 0 {
		return "", "", fmt.Errorf("unterminated section header")
	}
	if tail := strings.TrimLeft(line[end+1:], " \t"); tail != "" && tail[0] != '#' && tail[0] != ';' {
		return "", "", fmt.Errorf("text after the section header")
	}
	inner := line[1:end]
	name, quoted, hasSub := strings.Cut(inner, " ")
	if !validGitName(name, true) {
		return "", "", fmt.Errorf("bad section name")
	}
	if hasSub {
		quoted = strings.TrimLeft(quoted, " \t")
		if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
			return "", "", fmt.Errorf("bad subsection")
		}
		var b strings.Builder
		body := quoted[1 : len(quoted)-1]
		for i := 0; i < len(body); i++ {
			c := body[i]
			switch {
			case c == '\\' && i+1 < len(body):
				i++
				b.WriteByte(body[i])
			case c == '\\' || c == '"':
				return "", "", fmt.Errorf("bad subsection")
			default:
				b.WriteByte(c)
			}
		}
		sub = b.String()
		if sub == "" {
			return "", "", fmt.Errorf("empty subsection")
		}
	}
	return strings.ToLower(name), sub, nil
}

// validGitName: a section name is alphanumeric, '-' (no '.': the old
// [section.sub] form is refused); a key starts with a letter and is
// alphanumeric or '-'.
func validGitName(s string, section bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		switch {
		case letter:
		case c >= '0' && c <= '9' || c == '-':
			if i == 0 && !section {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// parseGitValue reads a value: whitespace around it dropped, "…" quoting,
// the escapes \\ \" \n \t \b, a comment after it. A trailing backslash
// (a line continuation) is refused.
func parseGitValue(s string) (string, error) {
	var b strings.Builder
	quoted := false
	pending := "" // whitespace kept only if more value follows
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", fmt.Errorf("line continuation")
			}
			i++
			b.WriteString(pending)
			pending = ""
			switch s[i] {
			case '\\', '"':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				return "", fmt.Errorf("bad escape")
			}
		case c == '"':
			b.WriteString(pending)
			pending = ""
			quoted = !quoted
		case quoted:
			b.WriteByte(c)
		case c == '#' || c == ';':
			return b.String(), nil
		case c == ' ' || c == '\t':
			if b.Len() > 0 {
				pending += string(c)
			}
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", fmt.Errorf("unterminated quote")
	}
	return b.String(), nil
}
