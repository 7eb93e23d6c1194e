package policyfile

import (
	"sort"
	"strconv"
)

// node is one value of a policy file, with the line it starts on. Both
// TOML and JSON are first read into nodes, and one decoder turns nodes into
// a File, so the two formats share one schema and one set of errors.
type node struct {
	line   int
	kind   kind
	str    string // kString; the literal text for kInt, kFloat, kOther
	b      bool   // kBool
	fields []field
	items  []*node
}

type field struct {
	key  string
	line int
	val  *node
}

type kind int

const (
	kObject kind = iota
	kArray
	kString
	kInt
	kFloat
	kBool
	kOther // a TOML date or time
)

var kindNames = []string{"table", "array", "string", "integer", "float", "boolean", "date-time"}

func (k kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "value"
}

// sortFields orders an object's fields by line, then key, so the first
// error reported is the first one in the file.
func sortFields(fs []field) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].line != fs[j].line {
			return fs[i].line < fs[j].line
		}
		return fs[i].key < fs[j].key
	})
}

// keyPath joins a key path for messages: entry[2].access.
func keyPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func indexPath(parent string, i int) string { return parent + "[" + strconv.Itoa(i) + "]" }

// collectKeys records every key path under n: object fields as
// "parent.key", array elements as "parent[]".
func collectKeys(n *node, prefix string, out map[string]bool) {
	switch n.kind {
	case kObject:
		for _, f := range n.fields {
			k := keyPath(prefix, f.key)
			out[k] = true
			collectKeys(f.val, k, out)
		}
	case kArray:
		for _, it := range n.items {
			collectKeys(it, prefix+"[]", out)
		}
	}
}
