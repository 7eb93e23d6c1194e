package suggest

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// errUnsupported is a policy file this editor will not change by itself:
// the person adds the printed lines by hand instead.
var errUnsupported = errors.New("this file's layout is not one suggest edits automatically")

// doc is a TOML policy file as lines, with its tables and keys located.
// It is deliberately small: it understands the layout ringfence policy
// init writes (tables, arrays of tables, one key per line, arrays that may
// span lines) and refuses what it does not (multi-line strings, headers it
// cannot read), so it never edits a file it misread. Every edit is checked
// afterwards by parsing the result with policyfile.Parse.
type doc struct {
	lines    []string
	sections []section
}

type section struct {
	name   string // "" for the top level
	array  bool   // [[name]]
	header int    // line of the header (-1 for the top level)
	end    int    // first line after the section
	keys   []key
}

type key struct {
	name       string
	start, end int // lines [start, end)
}

func parseDoc(text string) (*doc, error) {
	text = strings.TrimSuffix(text, "\n")
	d := &doc{}
	if text != "" {
		d.lines = strings.Split(text, "\n")
	}
	return d, d.scan()
}

func (d *doc) text() string {
	if len(d.lines) == 0 {
		return ""
	}
	return strings.Join(d.lines, "\n") + "\n"
}

func (d *doc) scan() error {
	d.sections = []section{{header: -1}}
	depth := 0
	for i, raw := range d.lines {
		if strings.Contains(raw, `"""`) || strings.Contains(raw, `'''`) || strings.ContainsRune(raw, '\r') {
			return errUnsupported
		}
		cur := &d.sections[len(d.sections)-1]
		if depth > 0 {
			delta, ok := bracketDelta(raw)
			if !ok {
				return errUnsupported
			}
			depth += delta
			if depth < 0 {
				return errUnsupported
			}
			if depth == 0 {
				cur.keys[len(cur.keys)-1].end = i + 1
			}
			continue
		}
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "["):
			name, array, ok := header(line)
			if !ok {
				return errUnsupported
			}
			cur.end = i
			d.sections = append(d.sections, section{name: name, array: array, header: i})
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !bareKey(name) {
			return errUnsupported
		}
		delta, ok := bracketDelta(value)
		if !ok || delta < 0 {
			return errUnsupported
		}
		depth = delta
		cur.keys = append(cur.keys, key{name: name, start: i, end: i + 1})
	}
	if depth != 0 {
		return errUnsupported
	}
	d.sections[len(d.sections)-1].end = len(d.lines)
	return nil
}

// header reads "[name]" or "[[name]]" with an optional comment after it.
func header(line string) (name string, array, ok bool) {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	switch {
	case strings.HasPrefix(line, "[[") && strings.HasSuffix(line, "]]"):
		name, array = line[2:len(line)-2], true
	case strings.HasSuffix(line, "]"):
		name = line[1 : len(line)-1]
	default:
		return "", false, false
	}
	name = strings.TrimSpace(name)
	for _, part := range strings.Split(name, ".") {
		if !bareKey(part) {
			return "", false, false
		}
	}
	return name, array, true
}

func bareKey(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// bracketDelta is how many [ and { a line of a value opens minus how many
// it closes, outside strings and comments. ok is false for a string left
// open at the end of the line.
func bracketDelta(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '#':
			return n, true
		case '[', '{':
			n++
		case ']', '}':
			n--
		case '"', '\'':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if c == '"' && s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return 0, false
			}
			i = j
		}
	}
	return n, true
}

// find is the index of the n-th section called name (array or not).
func (d *doc) find(name string, array bool, n int) int {
	for i, s := range d.sections {
		if s.name == name && s.array == array {
			if n == 0 {
				return i
			}
			n--
		}
	}
	return -1
}

func (s section) key(name string) (key, bool) {
	for _, k := range s.keys {
		if k.name == name {
			return k, true
		}
	}
	return key{}, false
}

// replace puts repl in place of lines [start, end) and rescans.
func (d *doc) replace(start, end int, repl ...string) error {
	out := append([]string{}, d.lines[:start]...)
	out = append(out, repl...)
	d.lines = append(out, d.lines[end:]...)
	return d.scan()
}

// setKey sets key in section si to "name = value" (its indentation kept),
// after comment lines; a missing key is inserted after the header (or the
// section's last key when after is true).
func (d *doc) setKey(si int, name, value string, comment []string) error {
	s := d.sections[si]
	if k, ok := s.key(name); ok {
		indent := d.lines[k.start][:len(d.lines[k.start])-len(strings.TrimLeft(d.lines[k.start], " \t"))]
		return d.replace(k.start, k.end, append(prefixed(comment, indent), indent+name+" = "+value)...)
	}
	at := s.header + 1
	if len(s.keys) > 0 {
		at = s.keys[len(s.keys)-1].end
	}
	return d.replace(at, at, append(prefixed(comment, ""), name+" = "+value)...)
}

func prefixed(lines []string, indent string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = indent + l
	}
	return out
}

// appendBlock adds lines at the end, after a blank line.
func (d *doc) appendBlock(lines ...string) error {
	if len(d.lines) > 0 && strings.TrimSpace(d.lines[len(d.lines)-1]) != "" {
		d.lines = append(d.lines, "")
	}
	d.lines = append(d.lines, lines...)
	return d.scan()
}

// quote is s as a TOML basic string. ok is false for bytes that are not
// UTF-8 (TOML cannot hold them).
func quote(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			const hex = "0123456789ABCDEF"
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), true
}

// quoteList is a TOML array of strings on one line.
func quoteList(list []string) (string, bool) {
	parts := make([]string, len(list))
	for i, s := range list {
		q, ok := quote(s)
		if !ok {
			return "", false
		}
		parts[i] = q
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}

// comment makes free text safe as one TOML comment line: no newline, no
// control character can end the comment early.
func comment(s string) string {
	return "# " + strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}
