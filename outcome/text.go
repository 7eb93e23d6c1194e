package outcome

import (
	"strings"
	"unicode/utf8"
)

// Bounds on what narration repeats from a field. A model can send a path of
// any length; the text it reads back must stay short whatever it sent.
const (
	maxQuoted   = 200 // a path, pattern, note or program, before quoting
	maxFixed    = 120 // a reason, stage, detail, bound or file type
	maxListed   = 8   // write roots or violations named in one narration
	maxSnippet  = 200 // a violation snippet, bytes
	maxEvidence = 512 // the stderr line kept as evidence, bytes
)

// quote shows a string the model (or a command) supplied: bounded, inside
// double quotes, with quotes, backslashes, control characters and invalid
// UTF-8 escaped, so it cannot end the sentence it sits in or forge a line.
func quote(s string) string {
	return `"` + escape(s, maxQuoted) + `"`
}

// clean is quote without the quotes, for short fixed vocabulary (a stage,
// a bound) that should still never carry a control character.
func clean(s string) string { return escape(s, maxFixed) }

// escape bounds both what it reads and what it writes to about max bytes,
// so escaping cannot multiply the length of hostile input.
func escape(s string, max int) string {
	cut := false
	if len(s) > max {
		s, cut = cutUTF8(s, max), true
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if b.Len() >= max {
			cut = true
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			hexByte(&b, s[i])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case invisible(r):
			hexRune(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// invisible reports a rune that would change how the text around it reads:
// controls, line separators and bidirectional overrides.
func invisible(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x2028 || r == 0x2029 || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func hexByte(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&15])
}

func hexRune(b *strings.Builder, r rune) {
	if r < 0x100 {
		hexByte(b, byte(r))
		return
	}
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte("0123456789abcdef"[(r>>shift)&15])
	}
}

// cutUTF8 returns at most max bytes of s, not splitting a rune.
func cutUTF8(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && i > max-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// scrubber replaces the configured host root by the mount path. At each
// position the longer of the two matches wins, so a model path under a
// mount path that happens to start with the host root text ("/workspace"
// when the host root is "/work") is left alone, while every other
// occurrence of the host root is rewritten.
type scrubber struct{ root, mount string }

func (s scrubber) active() bool { return s.root != "" && s.root != "/" }

// at reports what starts at t[i:]: 1 for the host root (to be replaced),
// 2 for the mount path (to be kept), 0 for neither.
func (s scrubber) at(t string, i int) int {
	isRoot := strings.HasPrefix(t[i:], s.root)
	isMount := s.mount != "" && strings.HasPrefix(t[i:], s.mount)
	switch {
	case isRoot && (!isMount || len(s.root) > len(s.mount)):
		return 1
	case isMount:
		return 2
	}
	return 0
}

// scrub rewrites t where the host root stands as a whole path: at a path
// boundary on both sides, so "/tmp/ws/a" becomes "/workspace/a" but
// "/tmp/ws-backup" (another directory) and "/x/tmp/ws" are left alone. It
// is idempotent on text it produced in most cases, and leaks() — which
// still sees any occurrence — decides whether the result may be shown.
func (s scrubber) scrub(t string) string { return s.replace(t, s.mount, false) }

// withheld stands in for a host root that scrubbing could not turn into a
// model path (the text was built so that the mount path would rebuild it).
const withheld = "[withheld]"

// redact replaces what still spells the host root by a marker.
// Unlike scrub, it replaces every occurrence, boundary or not.
func (s scrubber) redact(t string) string { return s.replace(t, withheld, true) }

func (s scrubber) replace(t, with string, anywhere bool) string {
	if !s.active() || !strings.Contains(t, s.root) {
		return t
	}
	var b strings.Builder
	for i := 0; i < len(t); {
		switch s.at(t, i) {
		case 1:
			if !anywhere && !wholePath(t, i, len(s.root)) {
				b.WriteByte(t[i])
				i++
				continue
			}
			b.WriteString(with)
			i += len(s.root)
		case 2:
			b.WriteString(s.mount)
			i += len(s.mount)
		default:
			b.WriteByte(t[i])
			i++
		}
	}
	return b.String()
}

// leaks reports whether t still shows the host root anywhere other than
// inside the mount path.
func (s scrubber) leaks(t string) bool {
	if !s.active() {
		return false
	}
	for i := 0; i < len(t); {
		switch s.at(t, i) {
		case 1:
			return true
		case 2:
			i += len(s.mount)
		default:
			i++
		}
	}
	return false
}

// ReplacePath rewrites from (an absolute path) to to in free text wherever
// from stands as a whole path (see scrub): the boundary-aware form of
// strings.ReplaceAll for host paths in messages. A from of "/" or "" is
// left alone: every path holds it.
func ReplacePath(t, from, to string) string {
	if from == "" || from == "/" || !strings.Contains(t, from) {
		return t
	}
	var b strings.Builder
	for i := 0; i < len(t); {
		if strings.HasPrefix(t[i:], from) && wholePath(t, i, len(from)) {
			b.WriteString(to)
			i += len(from)
			continue
		}
		b.WriteByte(t[i])
		i++
	}
	return b.String()
}

// wholePath reports whether t[i:i+n] (a path starting with "/") stands as
// a whole path: not preceded by a name character or a slash (it would be
// the tail of a longer path), and followed by the end, a slash, or a
// character that cannot continue a name. A dot continues a name only when
// a name character follows it ("ws.bak"), not at a sentence's end ("ws.").
func wholePath(t string, i, n int) bool {
	if i > 0 && (nameByte(t[i-1]) || t[i-1] == '/') {
		return false
	}
	j := i + n
	if j == len(t) || t[j] == '/' {
		return true
	}
	if t[j] == '.' {
		return j+1 == len(t) || !nameByte(t[j+1]) && t[j+1] != '.'
	}
	return !nameByte(t[j])
}

// nameByte is a byte that can continue a file name in the text we scrub:
// letters, digits, "-", "_", "+", "~", "@", "%", "=", and every byte of a
// multi-byte character.
func nameByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c >= 0x80:
		return true
	}
	return strings.IndexByte("-_+~@%=", c) >= 0
}
