package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

// object is the JSON Schema of a tool's arguments: always an object with
// no additional properties.
type object struct {
	Type                 string           `json:"type"`
	Properties           map[string]*prop `json:"properties"`
	Required             []string         `json:"required,omitempty"`
	AdditionalProperties bool             `json:"additionalProperties"`
}

// prop is the subset of JSON Schema the tools use, and all the decoder
// enforces: type, length, range, items.
type prop struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	MinLength   *int   `json:"minLength,omitempty"`
	MaxLength   *int   `json:"maxLength,omitempty"`
	Minimum     *int64 `json:"minimum,omitempty"`
	Maximum     *int64 `json:"maximum,omitempty"`
	Items       *prop  `json:"items,omitempty"`
	MinItems    *int   `json:"minItems,omitempty"`
	MaxItems    *int   `json:"maxItems,omitempty"`
}

func obj(required []string, props map[string]*prop) object {
	return object{Type: "object", Properties: props, Required: required}
}

func str(desc string, minLen, maxLen int) *prop {
	return &prop{Type: "string", Description: desc, MinLength: &minLen, MaxLength: &maxLen}
}

func integer(desc string, lo, hi int64) *prop {
	return &prop{Type: "integer", Description: desc, Minimum: &lo, Maximum: &hi}
}

func boolean(desc string) *prop { return &prop{Type: "boolean", Description: desc} }

func array(desc string, items *prop, minItems, maxItems int) *prop {
	return &prop{Type: "array", Description: desc, Items: items, MinItems: &minItems, MaxItems: &maxItems}
}

// maxPathChars bounds every path argument.
const maxPathChars = 4096

// fail is a call refused before it did anything: an outcome.Error (read
// it with outcome.Of) whose outcome says why (invalid-arguments,
// path-rejected); its message names the field, never the value. Path
// refusals unwrap to pathrule.ErrPathRefused.
func fail(o outcome.Outcome) error {
	var sentinel error
	if o.Kind == outcome.PathRejected {
		sentinel = pathrule.ErrPathRefused
	}
	return &outcome.Error{Op: "tools", Outcome: o, Err: sentinel}
}

func invalid(detail string) outcome.Outcome {
	return outcome.Outcome{Kind: outcome.InvalidArguments, Detail: detail}
}

func invalidf(format string, field string, n ...int64) error {
	args := []any{fieldName(field)}
	for _, v := range n {
		args = append(args, v)
	}
	return fail(invalid(fmt.Sprintf(format, args...)))
}

// outcomeOf is outcome.Of for errors that must become a result.
func outcomeOf(err error) outcome.Outcome {
	if o, ok := outcome.Of(err); ok {
		return o
	}
	return outcome.Outcome{Kind: outcome.IOFailure, Detail: "the call failed"}
}

// unknownField refuses a field the schema does not name. When its
// snake_case spelling is a field ("maxBytes" for "max_bytes", the names
// before issue 18), the refusal says so: the old names are never accepted
// as aliases (one name per field, the one tools/list publishes), but a
// client written against them learns the new name from the error.
func unknownField(shown, name string, known func(string) bool) error {
	if sn := SnakeCase(name); sn != name && known(sn) {
		return fail(invalid(fmt.Sprintf("unknown field %s: the field is named %s", fieldName(shown), fieldName(sn))))
	}
	return invalidf("unknown field %s", shown)
}

// SnakeCase spells a Go or camelCase name in snake_case, the one naming
// style of every tool parameter and structured field: "maxBytes" →
// "max_bytes", "DurationMs" → "duration_ms", "SHA256" → "sha256",
// "HTTPServer" → "http_server". A snake_case name is returned unchanged.
func SnakeCase(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if upper(c) {
			if i > 0 && (isLowerOrDigit(r[i-1]) || (upper(r[i-1]) && i+1 < len(r) && unicode.IsLower(r[i+1]))) {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// upper is a letter that lowers to another (ℤ is upper case but has no
// lower case: it is kept, as any other character).
func upper(c rune) bool { return unicode.ToLower(c) != c }

func isLowerOrDigit(c rune) bool { return unicode.IsLower(c) || unicode.IsDigit(c) }

// fieldName shows a field the model named: bounded, quoted.
func fieldName(f string) string {
	const max = 64
	if len(f) > max {
		f = f[:max] + "…"
	}
	return strconv.Quote(f)
}

// decodeArgs decodes raw into dst after checking it against sc exactly:
// one JSON object, no field the schema does not name (case-sensitively),
// every required field present and not null, every value of its type and
// within its bounds. The whole payload is bounded first.
func decodeArgs(raw json.RawMessage, sc object, maxBytes int, dst any) error {
	if len(raw) > maxBytes {
		return fail(invalid(fmt.Sprintf("the arguments are %d bytes, over the limit of %d", len(raw), maxBytes)))
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	fields, err := objectFields(raw)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if sc.Properties[k] == nil {
			return unknownField(k, k, func(n string) bool { return sc.Properties[n] != nil })
		}
	}
	for _, k := range sc.Required {
		if v, ok := fields[k]; !ok || isNull(v) {
			return invalidf("missing required field %s", k)
		}
	}
	for _, k := range names {
		if v := fields[k]; !isNull(v) {
			if err := checkValue(k, sc.Properties[k], v); err != nil {
				return err
			}
		}
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fail(invalid("the arguments do not match the schema"))
	}
	return nil
}

func objectFields(raw []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return nil, fail(invalid("the arguments must be one JSON object"))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(invalid("the arguments must be one JSON object"))
	}
	return fields, nil
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// checkValue checks one value against its property, naming the field.
func checkValue(name string, p *prop, v json.RawMessage) error {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return invalidf("field %s has no value", name)
	}
	switch p.Type {
	case "string":
		var s string
		if v[0] != '"' || json.Unmarshal(v, &s) != nil {
			return invalidf("field %s must be a string", name)
		}
		n := utf8.RuneCountInString(s)
		if p.MinLength != nil && n < *p.MinLength {
			return invalidf("field %s must be at least %d characters", name, int64(*p.MinLength))
		}
		if p.MaxLength != nil && n > *p.MaxLength {
			return invalidf("field %s must be at most %d characters", name, int64(*p.MaxLength))
		}
	case "integer":
		return checkInteger(name, p, v)
	case "boolean":
		if s := string(v); s != "true" && s != "false" {
			return invalidf("field %s must be true or false", name)
		}
	case "array":
		return checkArray(name, p, v)
	}
	return nil
}

func checkInteger(name string, p *prop, v json.RawMessage) error {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return invalidf("field %s must be an integer", name)
	}
	if p.Minimum != nil && n < *p.Minimum {
		return invalidf("field %s must be at least %d", name, *p.Minimum)
	}
	if p.Maximum != nil && n > *p.Maximum {
		return invalidf("field %s must be at most %d", name, *p.Maximum)
	}
	return nil
}

func checkArray(name string, p *prop, v json.RawMessage) error {
	var items []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &items) != nil {
		return invalidf("field %s must be an array", name)
	}
	if p.MinItems != nil && len(items) < *p.MinItems {
		return invalidf("field %s must have at least %d items", name, int64(*p.MinItems))
	}
	if p.MaxItems != nil && len(items) > *p.MaxItems {
		return invalidf("field %s must have at most %d items", name, int64(*p.MaxItems))
	}
	for i, it := range items {
		if isNull(it) {
			return invalidf("field %s must not hold null", name)
		}
		if err := checkValue(name+"["+strconv.Itoa(i)+"]", p.Items, it); err != nil {
			return err
		}
	}
	return nil
}
