package policyfile

import (
	"strconv"
	"strings"
)

// skipBlank skips spaces and tabs, comments, and (if newlines) line ends.
func (t *tomlLines) skipBlank(newlines bool) {
	for t.pos < len(t.src) {
		switch c := t.src[t.pos]; {
		case c == ' ' || c == '\t' || c == '\r':
			t.pos++
		case c == '\n' && newlines:
			t.pos++
		case c == '#':
			t.skipComment()
		default:
			return
		}
	}
}

func (t *tomlLines) skipComment() {
	if i := strings.IndexByte(t.src[t.pos:], '\n'); i >= 0 {
		t.pos += i
	} else {
		t.pos = len(t.src)
	}
}

func (t *tomlLines) skipLine() {
	t.skipComment()
	if t.pos < len(t.src) {
		t.pos++
	}
}

// key reads a dotted key: bare, "basic" or 'literal' segments.
func (t *tomlLines) key() []string {
	var parts []string
	for {
		t.skipBlank(false)
		seg, ok := t.keySegment()
		if !ok {
			return parts
		}
		parts = append(parts, seg)
		t.skipBlank(false)
		if t.peek() != '.' {
			return parts
		}
		t.pos++
	}
}

func (t *tomlLines) keySegment() (string, bool) {
	start := t.pos
	switch t.peek() {
	case '"':
		raw := t.basicString()
		if s, err := strconv.Unquote(raw); err == nil {
			return s, true
		}
		return strings.Trim(raw, `"`), true
	case '\'':
		return strings.Trim(t.literalString(), "'"), true
	}
	for t.pos < len(t.src) && isBareKey(t.src[t.pos]) {
		t.pos++
	}
	return t.src[start:t.pos], t.pos > start
}

func isBareKey(c byte) bool {
	return c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// value skips one value, recording the lines of array elements and inline
// table keys beneath path.
func (t *tomlLines) value(path []string) {
	t.skipBlank(false)
	switch {
	case strings.HasPrefix(t.src[t.pos:], `"""`):
		t.multiline(`"""`, true)
	case strings.HasPrefix(t.src[t.pos:], `'''`):
		t.multiline(`'''`, false)
	case t.peek() == '"':
		t.basicString()
	case t.peek() == '\'':
		t.literalString()
	case t.peek() == '[':
		t.array(path)
	case t.peek() == '{':
		t.inlineTable(path)
	default:
		for t.pos < len(t.src) && !strings.ContainsRune(",]}\n#", rune(t.src[t.pos])) {
			t.pos++
		}
	}
}

func (t *tomlLines) array(path []string) {
	t.pos++
	for i := 0; t.pos < len(t.src); {
		t.skipBlank(true)
		switch t.peek() {
		case ']':
			t.pos++
			return
		case ',':
			t.pos++
			continue
		case 0:
			return
		}
		start := t.pos
		elem := append(path[:len(path):len(path)], strconv.Itoa(i))
		t.mark(elem, start)
		t.value(elem)
		i++
		if t.pos == start {
			t.pos++
		}
	}
}

func (t *tomlLines) inlineTable(path []string) {
	t.pos++
	for t.pos < len(t.src) {
		t.skipBlank(true)
		switch t.peek() {
		case '}':
			t.pos++
			return
		case ',':
			t.pos++
			continue
		}
		start := t.pos
		parts := t.key()
		t.skipBlank(false)
		if len(parts) == 0 || t.peek() != '=' {
			t.pos = max(t.pos, start+1)
			continue
		}
		t.pos++
		sub := append(path[:len(path):len(path)], parts...)
		t.mark(sub, start)
		t.value(sub)
	}
}

// basicString skips "…" (with escapes) and returns it, quotes included.
func (t *tomlLines) basicString() string {
	start := t.pos
	for t.pos++; t.pos < len(t.src) && t.src[t.pos] != '"' && t.src[t.pos] != '\n'; t.pos++ {
		if t.src[t.pos] == '\\' {
			t.pos++
		}
	}
	t.pos = min(t.pos+1, len(t.src))
	return t.src[start:t.pos]
}

// literalString skips '…' and returns it, quotes included.
func (t *tomlLines) literalString() string {
	start := t.pos
	for t.pos++; t.pos < len(t.src) && t.src[t.pos] != '\'' && t.src[t.pos] != '\n'; t.pos++ {
	}
	t.pos = min(t.pos+1, len(t.src))
	return t.src[start:t.pos]
}

// multiline skips a """ or ”' string, including up to two quotes that
// directly precede the closing delimiter.
func (t *tomlLines) multiline(delim string, escapes bool) {
	t.pos += 3
	for t.pos < len(t.src) {
		if escapes && t.src[t.pos] == '\\' {
			t.pos += 2
			continue
		}
		if strings.HasPrefix(t.src[t.pos:], delim) {
			t.pos += 3
			for i := 0; i < 2 && t.pos < len(t.src) && t.src[t.pos] == delim[0]; i++ {
				t.pos++
			}
			return
		}
		t.pos++
	}
	t.pos = min(t.pos, len(t.src))
}
