package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// TestHints: every tool says what it does — read-only tools are read-only
// and idempotent, writers destructive, commands destructive and open to
// the network exactly when the network or a person's approval can reach
// past the sandbox.
func TestHints(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	want := map[string]Hints{
		"read_file": readOnly, "read_media": readOnly, "list_files": readOnly, "glob_files": readOnly, "grep_files": readOnly,
		"write_file": {Destructive: true, Idempotent: true}, "edit_file": {Destructive: true},
		// No gate and the default network (deny): closed.
		"run_command": {Destructive: true}, "run_code": {Destructive: true},
	}
	defs := f.set.Definitions()
	if len(defs) != len(want) {
		t.Fatalf("%d tools, want %d", len(defs), len(want))
	}
	for _, d := range defs {
		if d.Title == "" || d.Data == nil {
			t.Errorf("%s: no title or data type", d.Name)
		}
		if d.Hints != want[d.Name] {
			t.Errorf("%s: hints %+v, want %+v", d.Name, d.Hints, want[d.Name])
		}
	}
	// A gate can widen a network command's network: open.
	g := New(f.sb, Options{Gate: &fakeGate{}})
	for _, d := range g.Definitions() {
		if (d.Name == "run_command" || d.Name == "run_code") && !d.Hints.OpenWorld {
			t.Errorf("%s with a gate: not open-world", d.Name)
		}
	}
	// So does a network that reaches out.
	open := newFixtureTB(t, setup{mode: policy.WorkspaceWrite, network: policy.Network{Mode: policy.NetAllowAll}})
	for _, d := range open.set.Definitions() {
		if (d.Name == "run_command" || d.Name == "run_code") != d.Hints.OpenWorld {
			t.Errorf("%s under allow-all: open world %v", d.Name, d.Hints.OpenWorld)
		}
	}
}

// TestSchemasSnakeCase: every parameter of every tool (and of run_code's
// input objects) is snake_case.
func TestSchemasSnakeCase(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	for _, d := range f.set.Definitions() {
		var walk func(at string, v any)
		walk = func(at string, v any) {
			switch v := v.(type) {
			case map[string]any:
				if props, ok := v["properties"].(map[string]any); ok {
					for k, p := range props {
						if SnakeCase(k) != k || strings.ContainsAny(k, "- ") {
							t.Errorf("%s: parameter %s%s is not snake_case", d.Name, at, k)
						}
						walk(at+k+".", p)
					}
				}
				if items, ok := v["items"]; ok {
					walk(at+"[].", items)
				}
			}
		}
		var sc any
		if err := json.Unmarshal(d.InputSchema, &sc); err != nil {
			t.Fatal(err)
		}
		walk("", sc)
	}
}

// TestOldNamesRefused: the camelCase names used before issue 18 are not
// aliases — a call using one is refused, and the refusal names the field
// to use instead.
func TestOldNamesRefused(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.write("a.txt", "hello\n")
	for _, c := range []struct{ tool, args, want string }{
		{"read_file", `{"path":"a.txt","maxBytes":10}`, `unknown field "maxBytes": the field is named "max_bytes"`},
		{"run_code", `{"language":"sh","code":"true","timeoutSeconds":5}`, `unknown field "timeoutSeconds": the field is named "timeout_seconds"`},
		{"run_code", `{"language":"sh","code":"true","inWorkspace":true}`, `the field is named "in_workspace"`},
		{"run_code", `{"language":"sh","code":"true","inputs":[{"name":"x","fromWorkspace":"a.txt"}]}`,
			`unknown field "inputs[0].fromWorkspace": the field is named "from_workspace"`},
		// A name that is not an old spelling gets the plain refusal.
		{"read_file", `{"path":"a.txt","bogusField":1}`, `unknown field "bogusField"`},
	} {
		r := f.call(c.tool, c.args)
		if r.Outcome.Kind != outcome.InvalidArguments || !strings.Contains(r.Outcome.Detail, c.want) {
			t.Errorf("%s %s: %s %q, want %q", c.tool, c.args, r.Outcome.Kind, r.Outcome.Detail, c.want)
		}
	}
	// Control: the snake_case names work.
	r := f.call("read_file", `{"path":"a.txt","max_bytes":10}`)
	wantKind(t, r, outcome.OK)
	// A file over the bound is refused naming the parameter as spelled.
	r = f.call("read_file", `{"path":"a.txt","max_bytes":2}`)
	if r.Outcome.Kind != outcome.OverBudget || r.Outcome.Bound != "max_bytes" || !strings.Contains(r.Text, "max_bytes") || strings.Contains(r.Text, "maxBytes") {
		t.Errorf("over-budget read: %+v\n%s", r.Outcome, r.Text)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"maxBytes": "max_bytes", "DurationMs": "duration_ms", "SHA256": "sha256", "MIME": "mime",
		"HTTPServer": "http_server", "path": "path", "old_string": "old_string", "FirstLine": "first_line",
		"exitCode": "exit_code", "bytesUp": "bytes_up", "a_B": "a_b", "": "",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHostPathNamedAsGiven: read_file of an absolute host path is refused
// naming that path, not a rewritten "/workspace/…" one (issue 18, item 6).
func TestHostPathNamedAsGiven(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.write("go.mod", "module x\n")
	host := f.root + "/go.mod"
	r := f.call("read_file", obj_{"path": host})
	if r.Outcome.Kind != outcome.PathRejected || r.Outcome.Path != host {
		t.Fatalf("outcome %+v, want path-rejected naming %s", r.Outcome, host)
	}
	if !strings.Contains(r.Text, `"`+host+`"`) || strings.Contains(r.Text, "/workspace/go.mod") {
		t.Fatalf("the refusal does not name the path as given:\n%s", r.Text)
	}
	// Control: the model path of the same file is read.
	wantKind(t, f.call("read_file", obj_{"path": "/workspace/go.mod"}), outcome.OK)
}

// TestApprovalNoteReachesModel: the person's note reaches the model when
// they approve, as it does when they decline.
func TestApprovalNoteReachesModel(t *testing.T) {
	for _, d := range []Decision{ApproveOnce, ApproveSession, Decline} {
		g := &fakeGate{answer: Answer{Decision: d, Note: "use the staging db"}}
		f, _ := gateFixture(t, g, policy.DangerFullAccess)
		r := f.call("run_command", obj_{"command": "echo ask note"})
		if g.count() != 1 || r.Outcome.Note != "use the staging db" || !strings.Contains(r.Text, "use the staging db") {
			t.Errorf("%v: asked %d, outcome %+v:\n%s", d, g.count(), r.Outcome, r.Text)
		}
		if d != Decline && (r.Outcome.Kind != outcome.OK || !strings.Contains(r.Text, "ask note")) {
			t.Errorf("%v: the approved command did not run: %+v", d, r.Outcome)
		}
	}
	// Control: no note, no note sentence.
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f, _ := gateFixture(t, g, policy.DangerFullAccess)
	if r := f.call("run_command", obj_{"command": "echo ask quiet"}); r.Outcome.Note != "" || strings.Contains(r.Text, "left a note") {
		t.Errorf("a note appeared from nowhere: %+v\n%s", r.Outcome, r.Text)
	}
}
