package tools

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ringfence/ringfence/outcome"
)

// narrate is the narration of o. Every kind goes through outcome.Narrate
// except a command refused by classification (denied-by-policy, axis
// "exec"), which the outcome package does not narrate yet: its sentence
// lives here until it does (see doc.go).
func (s *Set) narrate(o outcome.Outcome) string {
	if o.Kind == outcome.DeniedByPolicy && o.Axis == axisExec {
		return execDenied(o)
	}
	return outcome.Narrate(o, s.nc)
}

// axisExec marks a denied-by-policy outcome for a command the
// classification refuses outright.
const axisExec = "exec"

func execDenied(o outcome.Outcome) string {
	text := "The sandbox policy refuses to run " + quoteShort(o.Program)
	if o.Detail != "" {
		text += " (" + o.Detail + ")"
	}
	return text + "; it was not run, and this refusal cannot be approved from here. " +
		"Do not retry it or a variant of it; do the task another way, or ask the user to run it themselves."
}

// quoteShort quotes a model-supplied name for a sentence: bounded, with
// quotes and control characters escaped.
func quoteShort(s string) string {
	const max = 200
	if len(s) > max {
		s = cutUTF8(s, max) + "…"
	}
	return strconv.Quote(s)
}

// scrub rewrites the host root to the mount path wherever it appears in
// text, with the outcome package's own rewriting (the longer of the root
// and the mount path wins at each position), so command output that shows
// the host root (pwd under a backend that keeps paths) shows /workspace.
func (s *Set) scrub(text string) string {
	return s.nc.Scrub(outcome.Outcome{Detail: text}).Detail
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, "\n") + "\n\n" + b
}

// cutMiddle keeps the head and the tail of s within max bytes, saying how
// much was left out: the end of a build log matters as much as its start.
func cutMiddle(s string, max int) (string, int) {
	if len(s) <= max {
		return s, 0
	}
	head := cutUTF8(s, max/2)
	tail := s[len(s)-max/2:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted := len(s) - len(head) - len(tail)
	return head + "\n[… " + strconv.Itoa(omitted) + " bytes omitted …]\n" + tail, omitted
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

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}
