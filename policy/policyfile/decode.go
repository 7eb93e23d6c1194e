package policyfile

import (
	"encoding"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/policy"
)

// decoder fills a Go value from a node tree. tag picks the struct tag that
// names fields ("toml" or "json"); a field without one cannot be set from a
// file. Unknown keys and type mismatches are errors naming the line.
type decoder struct {
	tag string
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func (d *decoder) decode(n *node, v reflect.Value, key string) error {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return d.decode(n, v.Elem(), key)
	}
	if reflect.PointerTo(v.Type()).Implements(textUnmarshaler) {
		return d.text(n, v, key)
	}
	switch v.Kind() {
	case reflect.Struct:
		return d.object(n, v, key)
	case reflect.Slice:
		return d.slice(n, v, key)
	case reflect.Map:
		return d.mapping(n, v, key)
	case reflect.String:
		if n.kind != kString {
			return mismatch(n, key, "a string")
		}
		v.SetString(n.str)
		return nil
	case reflect.Bool:
		if n.kind != kBool {
			return mismatch(n, key, "a boolean")
		}
		v.SetBool(n.b)
		return nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		return d.integer(n, v, key)
	}
	return &Error{Line: n.line, Key: key, Msg: "cannot be set from a file"}
}

func mismatch(n *node, key, want string) error {
	return &Error{Line: n.line, Key: key, Msg: "want " + want + ", got " + n.kind.String()}
}

// text hands a string (or the literal of an integer, for sizes) to the
// value's UnmarshalText; its error keeps the line.
func (d *decoder) text(n *node, v reflect.Value, key string) error {
	if n.kind != kString && n.kind != kInt {
		return mismatch(n, key, "a string")
	}
	u := v.Addr().Interface().(encoding.TextUnmarshaler)
	if err := u.UnmarshalText([]byte(n.str)); err != nil {
		msg := err.Error()
		var inv *policy.InvalidError
		if errors.As(err, &inv) {
			msg = strings.TrimPrefix(msg, "policy refused: ")
		}
		return &Error{Line: n.line, Key: key, Msg: msg, Err: err}
	}
	return nil
}

func (d *decoder) integer(n *node, v reflect.Value, key string) error {
	if n.kind != kInt {
		return mismatch(n, key, "an integer")
	}
	i, err := strconv.ParseInt(n.str, 10, 64)
	if err != nil || v.OverflowInt(i) {
		return &Error{Line: n.line, Key: key, Msg: "integer out of range"}
	}
	v.SetInt(i)
	return nil
}

func (d *decoder) object(n *node, v reflect.Value, key string) error {
	if n.kind != kObject {
		return mismatch(n, key, "a table")
	}
	names := d.fieldNames(v.Type())
	for _, f := range n.fields {
		i, ok := names[f.key]
		if !ok {
			return &Error{Line: f.line, Key: keyPath(key, f.key), Msg: "unknown key"}
		}
		if err := d.decode(f.val, v.Field(i), keyPath(key, f.key)); err != nil {
			return err
		}
	}
	return nil
}

// fieldNames maps the names the tag gives to field indexes.
func (d *decoder) fieldNames(t reflect.Type) map[string]int {
	names := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get(d.tag), ",")
		if f.IsExported() && name != "" && name != "-" {
			names[name] = i
		}
	}
	return names
}

func (d *decoder) slice(n *node, v reflect.Value, key string) error {
	if n.kind != kArray {
		return mismatch(n, key, "an array")
	}
	s := reflect.MakeSlice(v.Type(), len(n.items), len(n.items))
	for i, item := range n.items {
		if err := d.decode(item, s.Index(i), indexPath(key, i)); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

func (d *decoder) mapping(n *node, v reflect.Value, key string) error {
	if n.kind != kObject {
		return mismatch(n, key, "a table")
	}
	if v.Type().Key().Kind() != reflect.String {
		return &Error{Line: n.line, Key: key, Msg: "cannot be set from a file"}
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.fields))
	for _, f := range n.fields {
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.decode(f.val, elem, keyPath(key, f.key)); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(f.key).Convert(v.Type().Key()), elem)
	}
	v.Set(m)
	return nil
}
