package tools

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

func TestPermissions(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	for _, c := range []struct {
		tool string
		args string
		want []string
	}{
		{"read_file", `{"path":"src/a.go"}`, []string{"filesystem:read /workspace/src/a.go"}},
		{"read_file", `{"path":"/workspace/src/./b//a.go"}`, []string{"filesystem:read /workspace/src/b/a.go"}},
		{"read_file", `{"path":"x/../y"}`, []string{"filesystem:read /workspace/y"}},
		{"read_media", `{"path":"a.png"}`, []string{"filesystem:read /workspace/a.png"}},
		{"write_file", `{"path":"out/a","content":""}`, []string{"filesystem:write /workspace/out/a"}},
		{"edit_file", `{"path":"/workspace/a","old_string":"x","new_string":""}`, []string{"filesystem:write /workspace/a"}},
		{"list_files", `{}`, []string{"filesystem:read /workspace"}},
		{"list_files", `{"path":"/workspace"}`, []string{"filesystem:read /workspace"}},
		{"list_files", `{"path":"."}`, []string{"filesystem:read /workspace"}},
		{"list_files", `{"path":"src/"}`, []string{"filesystem:read /workspace/src"}},
		{"grep_files", `{"pattern":"x","path":"docs"}`, []string{"filesystem:read /workspace/docs"}},
		{"grep_files", `{"pattern":"x"}`, []string{"filesystem:read /workspace"}},
		{"glob_files", `{"pattern":"**/*.go"}`, []string{"filesystem:read /workspace"}},
		{"glob_files", `{"pattern":"src/**/*.go"}`, []string{"filesystem:read /workspace/src"}},
		{"glob_files", `{"pattern":"/workspace/src/*.go","path":""}`, []string{"filesystem:read /workspace/src"}},
		{"glob_files", `{"pattern":"b/*.go","path":"a"}`, []string{"filesystem:read /workspace/a/b"}},
		{"run_command", `{"command":"ls"}`, []string{"shell:ls"}},
		{"run_command", `{"command":"ls | grep x && cat y"}`, []string{"shell:ls", "shell:grep", "shell:cat"}},
		{"run_command", `{"command":"ls | grep x && curl http://example.com"}`, []string{"shell:ls", "shell:grep", "shell:curl", "network:*"}},
		{"run_command", `{"command":"echo $(cat f) > out; ls"}`, []string{"shell:echo", "shell:cat", "shell:ls"}},
		{"run_command", `{"argv":["timeout","5","make","test"]}`, []string{"shell:make"}},
		{"run_command", `{"argv":["sudo","rm","x"]}`, []string{"shell:sudo", "shell:rm"}},
		{"run_command", `{"command":"pip install requests","cwd":"/workspace/sub"}`, []string{"shell:pip", "network:*"}},
		{"run_command", `{"argv":["ls"],"cwd":"sub/dir"}`, []string{"shell:ls"}},
	} {
		got, err := f.set.Permissions(c.tool, json.RawMessage(c.args))
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s %s: got %q, %v; want %q", c.tool, c.args, got, err, c.want)
		}
	}
}

func TestPermissionsRefusedPath(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"/etc/passwd"}`},
		{"read_file", `{"path":"../x"}`},
		{"write_file", `{"path":"~/.bashrc","content":""}`},
		{"list_files", `{"path":"/workspace/../etc"}`},
		{"glob_files", `{"pattern":"../**"}`},
		{"glob_files", `{"pattern":"*","path":"/tmp"}`},
		{"grep_files", `{"pattern":"x","path":"a\\b"}`},
		{"run_command", `{"command":"ls","cwd":"/etc"}`},
		{"run_command", `{"command":"ls","cwd":"../.."}`},
		{"read_media", `{"path":"/workspacex/a.png"}`},
	} {
		perms, err := f.set.Permissions(c.tool, json.RawMessage(c.args))
		o, _ := outcome.Of(err)
		if perms != nil || o.Kind != outcome.PathRejected || !errors.Is(err, pathrule.ErrPathRefused) {
			t.Errorf("%s %s: perms %q, err %v", c.tool, c.args, perms, err)
		}
		r := f.call(c.tool, c.args)
		wantKind(t, r, outcome.PathRejected)
		if r.Audit.Permissions != nil {
			t.Errorf("%s %s: a refused call declared %q", c.tool, c.args, r.Audit.Permissions)
		}
	}
}

// TestInvalidArguments: every malformed payload is invalid-arguments, with
// a detail naming the field and never echoing the value.
func TestInvalidArguments(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite, opts: Options{MaxArgBytes: 4096}})
	const secret = "SECRETVALUE"
	for _, c := range []struct {
		tool, args, detail string
	}{
		{"nope", `{}`, "unknown tool"},
		{"read_file", `[]`, "one JSON object"},
		{"read_file", `"` + secret + `"`, "one JSON object"},
		{"read_file", `{"path":"a"} {}`, "one JSON object"},
		{"read_file", `{"path":`, "one JSON object"},
		{"read_file", `{}`, `missing required field "path"`},
		{"read_file", `{"path":null}`, `missing required field "path"`},
		{"read_file", `{"path":"a","extra":"` + secret + `"}`, `unknown field "extra"`},
		{"read_file", `{"PATH":"` + secret + `"}`, `unknown field "PATH"`},
		{"read_file", `{"path":7}`, `field "path" must be a string`},
		{"read_file", `{"path":"a","offset":"` + secret + `"}`, `field "offset" must be an integer`},
		{"read_file", `{"path":"a","offset":1.5}`, `field "offset" must be an integer`},
		{"read_file", `{"path":"a","offset":0}`, `field "offset" must be at least 1`},
		{"read_file", `{"path":"a","max_bytes":999999999}`, `field "max_bytes" must be at most`},
		{"read_file", `{"path":""}`, `field "path" must be at least 1`},
		{"edit_file", `{"path":"a","old_string":"x","new_string":"y","replace_all":"yes"}`, `field "replace_all" must be true or false`},
		{"write_file", `{"path":"a","content":"` + strings.Repeat("x", 5000) + `"}`, "over the limit of 4096"},
		{"run_command", `{}`, `exactly one of "command" and "argv"`},
		{"run_command", `{"command":"ls","argv":["ls"]}`, `exactly one of "command" and "argv"`},
		{"run_command", `{"argv":[]}`, `field "argv" must have at least 1 items`},
		{"run_command", `{"argv":[""]}`, `"argv" must start with a program name`},
		{"run_command", `{"argv":["ls",3]}`, `field "argv[1]" must be a string`},
		{"run_command", `{"argv":["ls",null]}`, `field "argv" must not hold null`},
		{"run_command", `{"command":""}`, `field "command" must be at least 1`},
		{"run_command", `{"command":"ls","timeout_seconds":100000}`, `field "timeout_seconds" must be at most 600`},
		{"grep_files", `{"pattern":"x","context_lines":-1}`, `field "context_lines" must be at least 0`},
		{"list_files", `{"depth":true}`, `field "depth" must be an integer`},
	} {
		r := f.call(c.tool, c.args)
		if r.Outcome.Kind != outcome.InvalidArguments || !strings.Contains(r.Outcome.Detail, c.detail) {
			t.Errorf("%s %s: %s %q, want detail %q", c.tool, c.args, r.Outcome.Kind, r.Outcome.Detail, c.detail)
		}
		if strings.Contains(r.Text, secret) || !r.IsError {
			t.Errorf("%s %s: text echoes the value or is not an error:\n%s", c.tool, c.args, r.Text)
		}
	}
}

// TestSchemasAdvertiseWhatIsEnforced checks each definition's schema with
// an independent JSON Schema validator: every payload the decoder accepts
// must be valid, every one the schema rejects must be refused.
func TestSchemasAdvertiseWhatIsEnforced(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	defs := f.set.Definitions()
	var names []string
	schemas := map[string]*jsonschema.Resolved{}
	for _, d := range defs {
		names = append(names, d.Name)
		var sc jsonschema.Schema
		if err := json.Unmarshal(d.InputSchema, &sc); err != nil {
			t.Fatalf("%s: schema does not parse: %v", d.Name, err)
		}
		if sc.AdditionalProperties == nil || sc.Type != "object" {
			t.Fatalf("%s: schema must be a closed object: %s", d.Name, d.InputSchema)
		}
		res, err := sc.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: schema does not resolve: %v", d.Name, err)
		}
		schemas[d.Name] = res
		if !strings.Contains(d.Description, "/workspace") || len(d.Description) < 100 {
			t.Errorf("%s: description too thin: %q", d.Name, d.Description)
		}
	}
	want := []string{"edit_file", "glob_files", "grep_files", "list_files", "read_file", "read_media", "run_code", "run_command", "write_file"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"a"}`}, {"read_file", `{"path":"a","offset":2,"limit":3,"max_bytes":10}`},
		{"read_file", `{"path":"a","offset":0}`}, {"read_file", `{}`}, {"read_file", `{"path":"a","x":1}`},
		{"read_file", `{"path":1}`}, {"read_file", `{"path":"a","max_bytes":1e99}`},
		{"write_file", `{"path":"a","content":""}`}, {"write_file", `{"path":"a"}`},
		{"edit_file", `{"path":"a","old_string":"","new_string":""}`}, {"edit_file", `{"path":"a","old_string":"x","new_string":"","replace_all":true}`},
		{"list_files", `{}`}, {"list_files", `{"depth":17}`}, {"list_files", `{"depth":2}`},
		{"glob_files", `{"pattern":"*"}`}, {"glob_files", `{"pattern":""}`},
		{"grep_files", `{"pattern":"x","max_matches":0}`}, {"grep_files", `{"pattern":"x","case_insensitive":false,"context_lines":10}`},
		{"run_command", `{"argv":["ls","-l"],"timeout_seconds":5,"stdin":"x"}`}, {"run_command", `{"argv":"ls"}`},
		{"run_command", `{"command":"ls","timeout_seconds":0}`}, {"read_media", `{"path":"a"}`},
	} {
		var inst any
		if err := json.Unmarshal([]byte(c.args), &inst); err != nil {
			t.Fatal(err)
		}
		schemaOK := schemas[c.tool].Validate(inst) == nil
		_, err := f.set.tools[c.tool].decode(json.RawMessage(c.args))
		if err == nil && !schemaOK {
			t.Errorf("%s %s: decoder accepts what the schema rejects", c.tool, c.args)
		}
		if o, _ := outcome.Of(err); !schemaOK && o.Kind != outcome.InvalidArguments {
			t.Errorf("%s %s: schema rejects, decoder says %v", c.tool, c.args, err)
		}
		if err != nil && schemaOK {
			t.Logf("%s %s: refused beyond the schema: %v", c.tool, c.args, err)
		}
	}
}
