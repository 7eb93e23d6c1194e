package tools

import (
	"strconv"
	"unicode/utf8"

	"github.com/ringfence/ringfence/outcome"
)

// narrate is the narration of o, in the session's context: for outcomes
// the tools made themselves (a refused argument, a file operation, a
// gate's answer). A run's outcome is narrated once, by the facade, from
// the call's own policy (Result.narration; see finish).
func (s *Set) narrate(o outcome.Outcome) string { return outcome.Narrate(o, s.nc) }

// scrub rewrites the host root to the mount path wherever it appears in
// text, with the outcome package's own rewriting (the longer of the root
// and the mount path wins at each position), so command output that shows
// the host root (pwd under a backend that keeps paths) shows /workspace.
func (s *Set) scrub(text string) string {
	return s.nc.Scrub(outcome.Outcome{Detail: text}).Detail
}

// cutUTF8 returns at most max bytes of s without splitting a rune.
func cutUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// quoteLong quotes text for the person's question (a command line, code):
// bounded, escaped.
func quoteLong(s string) string {
	const max = 4000
	if len(s) > max {
		s = cutUTF8(s, max) + "…"
	}
	return strconv.Quote(s)
}
