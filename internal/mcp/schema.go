package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

// Every name a client reads is snake_case: each tool's parameters (the
// tool layer's own) and every field of its structured content. The
// structured content is made of types shared with the CLI's --json and
// the Go API (outcome.Outcome, ringfence.ExecResult, …), whose JSON names
// are camelCase; rather than fork them, the MCP layer spells every field
// name of the content — and of its output schema — with tools.SnakeCase.
// The rewriting touches object keys only, and every key in this content
// is a struct field name: no type reachable from it is a map or an
// interface (TestStructuredTypesHaveNoMaps), so no data is ever renamed.

// structuredValue is v as JSON with every object key in snake_case.
func structuredValue(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // integers stay exact (an int64 limit, a byte count)
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	return snakeKeys(doc)
}

// snakeKeys renames every object key of a decoded JSON document; two keys
// that would become one are an error, never a silent overwrite.
func snakeKeys(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			sk := tools.SnakeCase(k)
			if _, dup := out[sk]; dup {
				return nil, fmt.Errorf("mcp: fields %q and another both name %q", k, sk)
			}
			se, err := snakeKeys(e)
			if err != nil {
				return nil, err
			}
			out[sk] = se
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			se, err := snakeKeys(e)
			if err != nil {
				return nil, err
			}
			out[i] = se
		}
		return out, nil
	}
	return v, nil
}

// schemaTypes are the schemas of the types whose JSON is not what their Go
// kind says: []byte is a base64 string (or null).
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[[]byte](): {Types: []string{"null", "string"}, ContentEncoding: "base64"},
}

// outputSchema is a tool's output schema: its structured content,
// {"outcome": the outcome, "data": the tool's result (absent when the call
// failed)}, with snake_case names throughout.
func outputSchema(data reflect.Type) (json.RawMessage, error) {
	opts := &jsonschema.ForOptions{TypeSchemas: schemaTypes}
	o, err := jsonschema.ForType(reflect.TypeFor[outcome.Outcome](), opts)
	if err != nil {
		return nil, err
	}
	props := map[string]*jsonschema.Schema{"outcome": o}
	if data != nil {
		d, err := jsonschema.ForType(data, opts)
		if err != nil {
			return nil, err
		}
		props["data"] = d
	}
	root := &jsonschema.Schema{Type: "object", Properties: props, Required: []string{"outcome"}}
	raw, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	doc["additionalProperties"] = false
	if err := snakeSchema(doc); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// snakeSchema renames, in place, the property names of a JSON Schema
// document and its required lists — and nothing else (a "default" or an
// "enum" holds data).
func snakeSchema(v any) error {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch k {
			case "properties":
				props, ok := e.(map[string]any)
				if !ok {
					continue
				}
				renamed := make(map[string]any, len(props))
				for name, p := range props {
					sn := tools.SnakeCase(name)
					if _, dup := renamed[sn]; dup {
						return fmt.Errorf("mcp: properties %q and another both name %q", name, sn)
					}
					if err := snakeSchema(p); err != nil {
						return err
					}
					renamed[sn] = p
				}
				v[k] = renamed
			case "required", "propertyOrder":
				if list, ok := e.([]any); ok {
					for i, n := range list {
						if s, ok := n.(string); ok {
							list[i] = tools.SnakeCase(s)
						}
					}
				}
			case "enum", "const", "default", "examples":
			default:
				if err := snakeSchema(e); err != nil {
					return err
				}
			}
		}
	case []any:
		for _, e := range v {
			if err := snakeSchema(e); err != nil {
				return err
			}
		}
	}
	return nil
}
