package policyfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
)

// jsonTree reads a JSON document into nodes, keeping the line of every key
// and value. Duplicate keys are errors: a policy that says two things about
// one key says nothing reliable.
type jsonTree struct {
	data  []byte
	dec   *json.Decoder
	lines []int // byte offsets at which lines 2, 3, … begin
}

func parseJSONTree(data []byte) (*node, error) {
	t := &jsonTree{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	t.dec.UseNumber()
	for i, c := range data {
		if c == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	n, err := t.value()
	if err != nil {
		return nil, err
	}
	if _, err := t.dec.Token(); err != io.EOF {
		return nil, &Error{Line: t.lineAt(int(t.dec.InputOffset())), Msg: "unexpected data after the top-level object"}
	}
	return n, nil
}

// lineAt is the 1-based line of a byte offset.
func (t *jsonTree) lineAt(off int) int {
	return sort.Search(len(t.lines), func(i int) bool { return t.lines[i] > off }) + 1
}

// next returns the next token and the line it starts on.
func (t *jsonTree) next() (json.Token, int, error) {
	off := int(t.dec.InputOffset())
	for off < len(t.data) && strings.IndexByte(" \t\r\n:,", t.data[off]) >= 0 {
		off++
	}
	tok, err := t.dec.Token()
	if err != nil {
		return nil, t.lineAt(off), t.syntax(err, off)
	}
	return tok, t.lineAt(off), nil
}

func (t *jsonTree) syntax(err error, off int) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &Error{Line: t.lineAt(off), Msg: "JSON syntax: " + strings.TrimPrefix(err.Error(), "json: "), Err: err}
}

func (t *jsonTree) value() (*node, error) {
	tok, line, err := t.next()
	if err != nil {
		return nil, err
	}
	return t.fromToken(tok, line)
}

func (t *jsonTree) fromToken(tok json.Token, line int) (*node, error) {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return t.object(line)
		}
		return t.array(line)
	case string:
		return &node{line: line, kind: kString, str: v}, nil
	case bool:
		return &node{line: line, kind: kBool, b: v}, nil
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return &node{line: line, kind: kInt, str: v.String()}, nil
		}
		return &node{line: line, kind: kFloat, str: v.String()}, nil
	}
	return nil, &Error{Line: line, Msg: "null is not a value in a policy file"}
}

func (t *jsonTree) object(line int) (*node, error) {
	n := &node{line: line, kind: kObject}
	seen := map[string]bool{}
	for {
		tok, kline, err := t.next()
		if err != nil {
			return nil, err
		}
		if tok == json.Delim('}') {
			return n, nil
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, &Error{Line: kline, Key: key, Msg: "duplicate key"}
		}
		seen[key] = true
		val, err := t.value()
		if err != nil {
			return nil, err
		}
		n.fields = append(n.fields, field{key: key, line: kline, val: val})
	}
}

func (t *jsonTree) array(line int) (*node, error) {
	n := &node{line: line, kind: kArray}
	for {
		tok, iline, err := t.next()
		if err != nil {
			return nil, err
		}
		if tok == json.Delim(']') {
			return n, nil
		}
		item, err := t.fromToken(tok, iline)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
}
