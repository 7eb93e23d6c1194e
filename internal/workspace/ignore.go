package workspace

import (
	"bytes"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// The common subset of .gitignore: globs with `*`, `?`, `[...]` and `**`,
// negation with `!`, directory-only rules ending in `/`, rules anchored to
// their file's directory by a leading or inner `/`, `#` comments and `\`
// escapes. Not implemented: .git/info/exclude, core.excludesFile, and the
// rule that a pattern without `**` never matches across `{a,b}` braces
// (doublestar expands braces; gitignore does not).

type ignoreRule struct {
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool
}

// ignoreSet is the chain of .gitignore files in force in one directory:
// its own, then its parents'. The deepest matching rule decides.
type ignoreSet struct {
	parent *ignoreSet
	base   string // the directory holding the file, relative to the root
	rules  []ignoreRule
}

// parseIgnore reads one .gitignore. Rules that are not valid globs are
// dropped rather than guessed at.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if r, ok := parseRule(string(bytes.TrimSuffix(line, []byte{'\r'}))); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func parseRule(line string) (ignoreRule, bool) {
	line = trimTrailingSpace(line)
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	switch {
	case line[0] == '!':
		r.negate, line = true, line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored, line = true, strings.TrimPrefix(line, "/")
	}
	r.pattern = line
	return r, line != "" && doublestar.ValidatePattern(line)
}

// trimTrailingSpace drops trailing spaces unless the last is escaped.
func trimTrailingSpace(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// with returns the set in force beneath base, adding rules if any.
func (s *ignoreSet) with(base string, rules []ignoreRule) *ignoreSet {
	if len(rules) == 0 {
		return s
	}
	return &ignoreSet{parent: s, base: base, rules: rules}
}

// ignored reports whether rel (relative to the root) is ignored.
func (s *ignoreSet) ignored(rel string, isDir bool) bool {
	for cur := s; cur != nil; cur = cur.parent {
		if matched, negated := cur.match(rel, isDir); matched {
			return !negated
		}
	}
	return false
}

func (s *ignoreSet) match(rel string, isDir bool) (matched, negated bool) {
	sub := rel
	if s.base != "" {
		if !strings.HasPrefix(rel, s.base+"/") {
			return false, false
		}
		sub = rel[len(s.base)+1:]
	}
	name := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(s.rules) - 1; i >= 0; i-- {
		r := s.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := name
		if r.anchored {
			target = sub
		}
		if doublestar.MatchUnvalidated(r.pattern, target) {
			return true, r.negate
		}
	}
	return false, false
}
