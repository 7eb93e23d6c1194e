package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

// wantHints are the annotations each tool must carry (issue 18): clients
// auto-approve on readOnlyHint and warn on destructiveHint, so each is
// decided per tool. run_command and run_code are open-world: an approved
// network command runs with the network widened (tools.Hints).
var wantHints = map[string][4]bool{ // readOnly, destructive, idempotent, openWorld
	"read_file": {true, false, true, false}, "read_media": {true, false, true, false},
	"list_files": {true, false, true, false}, "glob_files": {true, false, true, false},
	"grep_files": {true, false, true, false},
	"write_file": {false, true, true, false}, "edit_file": {false, true, false, false},
	"run_command": {false, true, false, true}, "run_code": {false, true, false, true},
}

func TestToolsTitledAndAnnotated(t *testing.T) {
	e := newEnv(t, tools.Options{})
	cs := e.connect(nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(wantHints) {
		t.Fatalf("%d tools, want %d", len(res.Tools), len(wantHints))
	}
	for _, tl := range res.Tools {
		a := tl.Annotations
		if tl.Title == "" || a == nil || a.Title != tl.Title || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: title %q, annotations %+v", tl.Name, tl.Title, a)
			continue
		}
		got := [4]bool{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if got != wantHints[tl.Name] {
			t.Errorf("%s: hints %v, want %v", tl.Name, got, wantHints[tl.Name])
		}
	}
	// The hints go on the wire as the spec spells them, false ones too
	// (a missing destructiveHint means true).
	raw, _ := json.Marshal(res.Tools[0].Annotations)
	for _, k := range []string{`"readOnlyHint"`, `"destructiveHint"`, `"idempotentHint"`, `"openWorldHint"`, `"title"`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("annotations %s lack %s", raw, k)
		}
	}
}

func TestServerInstructions(t *testing.T) {
	e := newEnv(t, tools.Options{})
	cs := e.connect(nil)
	ins := cs.InitializeResult().Instructions
	for _, want := range []string{"/workspace", "relative to the workspace", "host path", "approve once", "note", "decline", "workspace-write", "network deny"} {
		if !strings.Contains(ins, want) {
			t.Errorf("instructions lack %q:\n%s", want, ins)
		}
	}
	if strings.Contains(ins, e.root) {
		t.Errorf("instructions show the host root:\n%s", ins)
	}
}

// TestSchemaNamesSnakeCase walks every tool's input and output schema as
// a client lists them and fails on any property not in snake_case.
func TestSchemaNamesSnakeCase(t *testing.T) {
	e := newEnv(t, tools.Options{})
	cs := e.connect(nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		for which, sc := range map[string]any{"input": tl.InputSchema, "output": tl.OutputSchema} {
			raw, _ := json.Marshal(sc)
			var doc any
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			n := 0
			walkProperties(doc, "", func(at, name string) {
				n++
				if !isSnake(name) {
					t.Errorf("%s %s schema: property %s%s is not snake_case", tl.Name, which, at, name)
				}
			})
			if n == 0 && which == "output" {
				t.Errorf("%s: the output schema names no property", tl.Name)
			}
		}
	}
	// Control: the walk sees a camelCase property, and isSnake refuses it.
	var seen []string
	walkProperties(map[string]any{"properties": map[string]any{"a": map[string]any{"items": map[string]any{
		"properties": map[string]any{"maxBytes": map[string]any{}}}}}}, "", func(_, n string) { seen = append(seen, n) })
	if len(seen) != 2 || isSnake(seen[0]+seen[1]) {
		t.Fatalf("control: the walk saw %v", seen)
	}
}

// walkProperties calls f for every property name anywhere in a schema.
func walkProperties(v any, at string, f func(at, name string)) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "properties" {
				if props, ok := e.(map[string]any); ok {
					for name, p := range props {
						f(at, name)
						walkProperties(p, at+name+".", f)
					}
					continue
				}
			}
			walkProperties(e, at, f)
		}
	case []any:
		for _, e := range v {
			walkProperties(e, at, f)
		}
	}
}

// TestStructuredTypesHaveNoMaps: the structured content is renamed key by
// key (schema.go); that renames only field names as long as no type it
// holds is a map or an interface, whose keys would be data.
func TestStructuredTypesHaveNoMaps(t *testing.T) {
	e := newEnv(t, tools.Options{})
	roots := []reflect.Type{reflect.TypeFor[outcome.Outcome]()}
	for _, d := range tools.New(e.sb, tools.Options{}).Definitions() {
		if d.Data == nil {
			t.Errorf("%s has no data type", d.Name)
			continue
		}
		roots = append(roots, d.Data)
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, at string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Map, reflect.Interface:
			t.Errorf("%s is a %s: its keys would be renamed", at, ty.Kind())
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(ty.Elem(), at+"[]")
		case reflect.Struct:
			for _, f := range reflect.VisibleFields(ty) {
				if f.IsExported() && f.Tag.Get("json") != "-" {
					walk(f.Type, at+"."+f.Name)
				}
			}
		}
	}
	for _, r := range roots {
		walk(r, r.String())
	}
	if len(seen) < 20 {
		t.Fatalf("control: the walk saw only %d types", len(seen))
	}
}

func TestStructuredValueSnakeCase(t *testing.T) {
	code := 3
	v, err := structuredValue(Structured{
		Outcome: outcome.Outcome{Kind: outcome.SandboxViolation, ExitCode: &code, WriteRoots: []string{"/workspace/out"}, FileType: "x"},
		Data:    &tools.ReadData{Path: "/workspace/a", FirstLine: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v)
	for _, want := range []string{`"exit_code":3`, `"write_roots":["/workspace/out"]`, `"file_type":"x"`, `"first_line":2`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("%s lacks %s", raw, want)
		}
	}
	if bad := nonSnakeKeys(v, ""); len(bad) > 0 {
		t.Errorf("camelCase left: %v", bad)
	}
	// Two fields that would share a name are an error, never merged.
	if _, err := snakeKeys(map[string]any{"exitCode": 1, "exit_code": 2}); err == nil {
		t.Fatal("a name collision was merged")
	}
	// Control: the schema a client validates with refuses the old name.
	sc, err := outputSchema(reflect.TypeFor[*tools.ReadData]())
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(sc, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var ok, old any
	_ = json.Unmarshal([]byte(`{"outcome":{"kind":"ok"},"data":{"path":"a","size":1,"first_line":1,"lines":1,"more":false,"binary":false}}`), &ok)
	_ = json.Unmarshal([]byte(`{"outcome":{"kind":"ok"},"data":{"path":"a","size":1,"firstLine":1,"lines":1,"more":false,"binary":false}}`), &old)
	if err := rs.Validate(ok); err != nil {
		t.Fatalf("a snake_case result does not validate: %v", err)
	}
	if rs.Validate(old) == nil {
		t.Fatal("control: a camelCase result validated")
	}
}

// TestApprovalFormCurrentEnum: the form is a titled single-select enum
// (oneOf of const + title, MCP 2025-11-25), never the deprecated
// enumNames.
func TestApprovalFormCurrentEnum(t *testing.T) {
	e := gateEnv(t, 10*time.Second)
	el := &elicitor{}
	el.set("accept", choiceOnce, "")
	cs := e.connect(el)
	r, st := call(t, cs, "write_file", map[string]any{"path": hook, "content": "#!/bin/sh\n"})
	wantKind(t, r, st, "ok", false)
	if len(el.schemas) != 1 {
		t.Fatalf("asked %d times", len(el.schemas))
	}
	raw, _ := json.Marshal(el.schemas[0])
	if strings.Contains(string(raw), "enumNames") || strings.Contains(string(raw), `"enum"`) {
		t.Fatalf("the form uses the deprecated enum form: %s", raw)
	}
	var form struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Default string `json:"default"`
			OneOf   []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"oneOf"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &form); err != nil {
		t.Fatal(err)
	}
	d := form.Properties[fieldDecision]
	var consts []string
	for _, o := range d.OneOf {
		if o.Title == "" {
			t.Errorf("choice %q has no title", o.Const)
		}
		consts = append(consts, o.Const)
	}
	if d.Type != "string" || d.Default != choiceDecline || strings.Join(consts, ",") != "approve-once,approve-session,decline" {
		t.Fatalf("decision field %+v", d)
	}
	if _, ok := form.Properties[fieldNote]; !ok {
		t.Fatal("the form has no note")
	}
}

// TestNoteReachesModel: the person's note for the agent reaches the model
// — in the text and in the structured outcome — when they approve, and
// when they decline.
func TestNoteReachesModel(t *testing.T) {
	for _, c := range []struct{ action, decision, kind string }{
		{"accept", choiceOnce, "ok"},
		{"accept", choiceSession, "ok"},
		{"accept", choiceDecline, "gate-declined"},
		// A client's own decline button that sends the form along.
		{"decline", "", "gate-declined"},
	} {
		t.Run(c.action+"-"+c.decision, func(t *testing.T) {
			e := gateEnv(t, 10*time.Second)
			el := &elicitor{}
			el.set(c.action, c.decision, "keep the hook short")
			cs := e.connect(el)
			r, st := call(t, cs, "write_file", map[string]any{"path": hook, "content": "#!/bin/sh\n"})
			wantKind(t, r, st, c.kind, c.kind != "ok")
			if !strings.Contains(text(r), "keep the hook short") || st.Outcome.Note != "keep the hook short" {
				t.Fatalf("the note did not reach the model: note %q\n%s", st.Outcome.Note, text(r))
			}
		})
	}
}

// TestToolErrorsCarryOutcome: a refused call is a tool error (isError)
// with its outcome as structured content: an old parameter name, and a
// host path (named as the model gave it).
func TestToolErrorsCarryOutcome(t *testing.T) {
	e := newEnv(t, tools.Options{})
	e.write("go.mod", "module x\n")
	cs := e.connect(nil)
	r, st := call(t, cs, "read_file", map[string]any{"path": "go.mod", "maxBytes": 10})
	wantKind(t, r, st, "invalid-arguments", true)
	if !strings.Contains(st.Outcome.Detail, `the field is named "max_bytes"`) {
		t.Fatalf("detail %q", st.Outcome.Detail)
	}
	host := e.root + "/go.mod"
	r, st = call(t, cs, "read_file", map[string]any{"path": host})
	wantKind(t, r, st, "path-rejected", true)
	if st.Outcome.Path != host || !strings.Contains(text(r), `"`+host+`"`) || strings.Contains(text(r), "/workspace/go.mod") {
		t.Fatalf("the refusal does not name the path as given: %+v\n%s", st.Outcome, text(r))
	}
	// Control: the snake_case call works.
	r, st = call(t, cs, "read_file", map[string]any{"path": "go.mod", "max_bytes": 100})
	wantKind(t, r, st, "ok", false)
	if _, ok := r.StructuredContent.(map[string]any)["data"]; !ok {
		t.Fatal("an ok read has no data")
	}
}
