package policyfile

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// parseTOMLTree reads TOML into nodes. BurntSushi/toml checks the syntax
// and gives the values; it does not say on which line each key stands, so
// tomlLines finds that in a second, lenient pass over the same text.
func parseTOMLTree(data []byte) (*node, error) {
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &Error{Line: pe.Position.Line, Msg: "TOML syntax: " + pe.Message, Err: err}
		}
		return nil, &Error{Msg: "TOML: " + err.Error(), Err: err}
	}
	loc := locateTOML(string(data))
	return tomlNode(m, nil, 1, loc), nil
}

// tomlNode converts a decoded TOML value; path holds key segments and
// array indexes, the form locateTOML records lines under.
func tomlNode(v any, path []string, parentLine int, loc map[string]int) *node {
	line := parentLine
	if l, ok := loc[pathKey(path)]; ok {
		line = l
	}
	n := &node{line: line}
	switch v := v.(type) {
	case map[string]any:
		n.kind = kObject
		for k, val := range v {
			child := tomlNode(val, appendPath(path, k), line, loc)
			n.fields = append(n.fields, field{key: k, line: child.line, val: child})
		}
		sortFields(n.fields)
	case []map[string]any:
		n.kind = kArray
		for i, val := range v {
			n.items = append(n.items, tomlNode(val, appendPath(path, strconv.Itoa(i)), line, loc))
		}
	case []any:
		n.kind = kArray
		for i, val := range v {
			n.items = append(n.items, tomlNode(val, appendPath(path, strconv.Itoa(i)), line, loc))
		}
	case string:
		n.kind, n.str = kString, v
	case int64:
		n.kind, n.str = kInt, strconv.FormatInt(v, 10)
	case float64:
		n.kind, n.str = kFloat, strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		n.kind, n.b = kBool, v
	default:
		n.kind = kOther
	}
	return n
}

func appendPath(path []string, seg string) []string {
	return append(path[:len(path):len(path)], seg)
}

func pathKey(path []string) string { return strings.Join(path, "\x1f") }

// tomlLines is the lenient locator: it walks text the parser has already
// accepted and records, for each key path (array-of-tables and inline array
// elements by index), the line it first appears on. It never fails; on
// anything it does not follow it skips to the end of the line.
type tomlLines struct {
	src   string
	pos   int
	nl    []int // offsets at which lines 2, 3, … begin
	lines map[string]int
	aot   map[string]int // array-of-tables path → elements seen
}

func locateTOML(src string) map[string]int {
	t := &tomlLines{src: src, lines: map[string]int{}, aot: map[string]int{}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			t.nl = append(t.nl, i+1)
		}
	}
	var ctx []string
	for {
		t.skipBlank(true)
		if t.pos >= len(src) {
			return t.lines
		}
		start := t.pos
		if src[t.pos] == '[' {
			ctx = t.header()
		} else {
			parts := t.key()
			t.skipBlank(false)
			if len(parts) > 0 && t.peek() == '=' {
				t.pos++
				full := append(ctx[:len(ctx):len(ctx)], parts...)
				t.mark(full, start)
				t.value(full)
			}
		}
		if t.pos == start {
			t.skipLine()
		}
	}
}

func (t *tomlLines) lineAt(off int) int {
	return sort.Search(len(t.nl), func(i int) bool { return t.nl[i] > off }) + 1
}

func (t *tomlLines) mark(path []string, off int) {
	if k := pathKey(path); t.lines[k] == 0 {
		t.lines[k] = t.lineAt(off)
	}
}

func (t *tomlLines) peek() byte {
	if t.pos < len(t.src) {
		return t.src[t.pos]
	}
	return 0
}

// header reads [table] or [[array]] and returns the new key context.
func (t *tomlLines) header() []string {
	start := t.pos
	isArray := strings.HasPrefix(t.src[t.pos:], "[[")
	t.pos += 1 + btoi(isArray)
	parts := t.key()
	var ctx []string
	for i, p := range parts {
		ctx = append(ctx, p)
		last := i == len(parts)-1
		if n, ok := t.aot[pathKey(ctx)]; ok && !(last && isArray) {
			ctx = append(ctx, strconv.Itoa(n-1))
		}
	}
	if isArray {
		t.mark(ctx, start)
		n := t.aot[pathKey(ctx)]
		t.aot[pathKey(ctx)] = n + 1
		ctx = append(ctx, strconv.Itoa(n))
	}
	t.mark(ctx, start)
	t.skipLine()
	return ctx
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
