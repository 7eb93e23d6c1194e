package outcome

import (
	"strings"
	"unicode/utf8"
)

// maxPath bounds a path taken from a message; anything longer is not kept.
const maxPath = 1024

// errnoPhrases are the errno texts a refused file effect is reported with.
var errnoPhrases = []string{"permission denied", "operation not permitted", "read-only file system"}

// pathOf extracts the path a denial message names, from the shapes the
// common tools print, or "" when it names none it can be sure of:
//
//	touch: cannot touch '/x': Read-only file system      (quoted, ASCII or ‘curly’)
//	PermissionError: [Errno 13] Permission denied: '/x'  (Python)
//	EACCES: permission denied, open '/x'                 (node)
//	bash: line 1: /x: Permission denied                  (shells)
//	open /x: operation not permitted                     (Go's PathError)
func pathOf(line string) string {
	if p := quotedPath(line); p != "" {
		return p
	}
	return segmentPath(line)
}

// quotedPath returns the first quoted token that looks like a path. A
// quote that does not open one (the apostrophe of "can't") is skipped and
// the search moves on from the next quote, not past the bad pair.
func quotedPath(line string) string {
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		closer, ok := closerOf(r)
		if !ok {
			i += size
			continue
		}
		rest := line[i+size:]
		if j := strings.IndexRune(rest, closer); j > 0 {
			inner, after := rest[:j], rest[j+utf8.RuneLen(closer):]
			if pathLike(inner) || (plainName(inner) && strings.HasPrefix(after, ":")) {
				return inner
			}
		}
		i += size
	}
	return ""
}

func closerOf(r rune) (rune, bool) {
	switch r {
	case '\'', '`':
		return '\'', true
	case '"':
		return '"', true
	case '‘':
		return '’', true
	}
	return 0, false
}

// segmentPath handles unquoted messages shaped "…: <op> <path>: <errno text>".
func segmentPath(line string) string {
	segs := strings.Split(line, ": ")
	for k := 1; k < len(segs); k++ {
		if !hasErrnoPhrase(strings.ToLower(segs[k])) {
			continue
		}
		seg := segs[k-1]
		cand := seg
		if sp := strings.LastIndexByte(seg, ' '); sp >= 0 {
			cand = seg[sp+1:]
		}
		// A bare name is taken only after a verb that names a file
		// ("sh: 1: cannot create .bashrc: …"), never on its own.
		if pathLike(cand) || (plainName(cand) && (fileVerb(strings.ToLower(seg)) || afterLineNumber(segs[:k-1]))) {
			return cand
		}
		return ""
	}
	return ""
}

func hasErrnoPhrase(lower string) bool {
	for _, p := range errnoPhrases {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	return false
}

// pathLike accepts what can only be a path: it starts at the root, the
// home, or the current directory, or contains a separator.
func pathLike(s string) bool {
	if !plainName(s) {
		return false
	}
	return s[0] == '/' || s[0] == '~' || strings.HasPrefix(s, "./") ||
		strings.HasPrefix(s, "../") || strings.Contains(s, "/")
}

// afterLineNumber reports bash's "bash: line 3: NAME: <errno text>": the
// segment before NAME is "line N", so NAME is what the error is about.
func afterLineNumber(before []string) bool {
	if len(before) == 0 {
		return false
	}
	n, ok := strings.CutPrefix(before[len(before)-1], "line ")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// fileVerb reports a message segment whose last word follows a verb that
// takes a file ("cannot create X", "can't open X").
func fileVerb(seg string) bool {
	for _, v := range []string{"cannot create ", "can't create ", "cannot open ", "can't open ", "cannot touch "} {
		if i := strings.LastIndex(seg, v); i >= 0 && !strings.Contains(seg[i+len(v):], " ") {
			return true
		}
	}
	return false
}

// plainName rejects the empty string, overlong text, and anything with a
// control character or a space at either end.
func plainName(s string) bool {
	if s == "" || len(s) > maxPath || strings.TrimSpace(s) != s {
		return false
	}
	for _, r := range s {
		if invisible(r) {
			return false
		}
	}
	return true
}
