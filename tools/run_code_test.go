package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/internal/coderun"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func needCode(t *testing.T, f *fixture, language string) {
	t.Helper()
	if f.sb.Backend() == "" {
		testenv.Need(t, "a confinement backend", os.ErrNotExist)
	}
	_, _, err := coderun.Interpreter(f.sb, language)
	testenv.Need(t, "interpreter for "+language, err)
}

func TestRunCodeDefinition(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	var def Definition
	for _, d := range f.set.Definitions() {
		if d.Name == "run_code" {
			def = d
		}
	}
	var sc struct {
		AdditionalProperties bool     `json:"additionalProperties"`
		Required             []string `json:"required"`
		Properties           map[string]struct {
			Enum  []string `json:"enum"`
			Items *struct {
				AdditionalProperties bool           `json:"additionalProperties"`
				Properties           map[string]any `json:"properties"`
			} `json:"items"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(def.InputSchema, &sc); err != nil {
		t.Fatal(err)
	}
	if sc.AdditionalProperties || strings.Join(sc.Required, ",") != "language,code" ||
		strings.Join(sc.Properties["language"].Enum, ",") != "bash,javascript,python,sh" {
		t.Errorf("schema %s", def.InputSchema)
	}
	it := sc.Properties["inputs"].Items
	if it == nil || it.AdditionalProperties || len(it.Properties) != 3 {
		t.Errorf("inputs items %s", def.InputSchema)
	}
	for _, w := range []string{"RINGFENCE_OUTPUT_DIR", "inputs/manifest.json", "sha256", "/workspace"} {
		if !strings.Contains(def.Description, w) {
			t.Errorf("description lacks %q", w)
		}
	}
}

// TestRunCodeSchemaMatchesDecoder: every call the published schema
// rejects, the decoder refuses as invalid-arguments, and nothing the
// schema accepts is refused by the decoder for a schema reason.
func TestRunCodeSchemaMatchesDecoder(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	var sc jsonschema.Schema
	for _, d := range f.set.Definitions() {
		if d.Name == "run_code" {
			if err := json.Unmarshal(d.InputSchema, &sc); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := sc.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range []string{
		`{"language":"python","code":"x"}`, `{"language":"sh","code":"x","timeout_seconds":5,"in_workspace":true}`,
		`{"language":"python","code":"x","inputs":[{"name":"a","content":""}]}`,
		`{"language":"python","code":"x","inputs":[{"name":"a","from_workspace":"b"}]}`,
		`{"language":"ruby","code":"x"}`, `{"language":"python","code":""}`, `{"language":"python"}`,
		`{"language":"python","code":"x","inputs":[{"name":"a","content":"x","mode":1}]}`,
		`{"language":"python","code":"x","inputs":[{"content":"x"}]}`, `{"language":"python","code":"x","inputs":[{"name":""}]}`,
		`{"language":"python","code":"x","inputs":["a"]}`, `{"language":"python","code":"x","timeout_seconds":0}`,
	} {
		var inst any
		if err := json.Unmarshal([]byte(args), &inst); err != nil {
			t.Fatal(err)
		}
		schemaOK := res.Validate(inst) == nil
		_, err := f.set.tools["run_code"].decode(json.RawMessage(args))
		if err == nil && !schemaOK {
			t.Errorf("%s: decoder accepts what the schema rejects", args)
		}
		if o, _ := outcome.Of(err); !schemaOK && o.Kind != outcome.InvalidArguments {
			t.Errorf("%s: schema rejects, decoder says %v", args, err)
		}
	}
}

func TestRunCodePermissions(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	perms, err := f.set.Permissions("run_code", raw(t, obj_{"language": "python", "code": "print(1)",
		"inputs": []obj_{{"name": "a.csv", "from_workspace": "/workspace/data/a.csv"}, {"name": "b", "content": "x"}}}))
	want := "shell:python3|filesystem:read /workspace/data/a.csv|filesystem:write /workspace/outputs"
	if err != nil || strings.Join(perms, "|") != want {
		t.Errorf("permissions %q, %v", perms, err)
	}
}

func TestRunCodeArgumentsRefused(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	for _, c := range []struct {
		args string
		kind outcome.Kind
	}{
		{`{"language":"python"}`, outcome.InvalidArguments},
		{`{"language":"ruby","code":"x"}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","extra":1}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":[{"name":"a","content":"x","mode":1}]}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":[{"Name":"a","content":"x"}]}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":[{"name":"a","content":"x","from_workspace":"b"}]}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":[{"name":"a"}]}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":["a"]}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":[{"name":1,"content":"x"}]}`, outcome.InvalidArguments},
		{`{"language":"python","code":"x","inputs":[{"name":"a","from_workspace":"../etc/passwd"}]}`, outcome.PathRejected},
		{`{"language":"python","code":"x","timeout_seconds":100000}`, outcome.InvalidArguments},
	} {
		_, err := f.set.Permissions("run_code", json.RawMessage(c.args))
		o, _ := outcome.Of(err)
		if o.Kind != c.kind {
			t.Errorf("%s: %v, want %s", c.args, err, c.kind)
		}
	}
}

const codeMarker = "RF-TOOL-CODE-MARKER-31"

func TestRunCodeResult(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	needCode(t, f, "python")
	f.write("data/in.csv", "x\n1\n2\n")
	code := `# ` + codeMarker + `
import hashlib, json, os
out = os.environ["RINGFENCE_OUTPUT_DIR"]
m = json.load(open("inputs/manifest.json"))
print(len(m["inputs"]), hashlib.sha256(open("inputs/in.csv", "rb").read()).hexdigest() == m["inputs"][0]["sha256"])
open(os.path.join(out, "sum.csv"), "w").write("total\n3\n")
open(os.path.join(out, "big.bin"), "wb").write(b"\0" * 300000)
os.symlink("/etc/passwd", os.path.join(out, "link"))
`
	r := f.call("run_code", obj_{"language": "python", "code": code, "inputs": []obj_{
		{"name": "in.csv", "from_workspace": "data/in.csv"}, {"name": "note", "content": "hi"}}})
	wantKind(t, r, outcome.OK)
	for _, w := range []string{"exit code 0", "2 True", "--- outputs (3 entries) ---",
		`"sum.csv" 8 bytes, text/csv; charset=utf-8, sha256 `, "--- \"sum.csv\" (8 bytes) ---\ntotal\n3",
		`"big.bin" 300000 bytes, application/octet-stream, sha256 `, ": saved to /workspace/outputs/run-",
		`"link": refused (symlink; never followed or read)`} {
		if !strings.Contains(r.Text, w) {
			t.Errorf("text lacks %q:\n%s", w, r.Text)
		}
	}
	if strings.Contains(r.Text, codeMarker) || strings.Contains(r.Text, f.root) || strings.Contains(r.Text, "root:x:") {
		t.Errorf("text shows the code, the host root or a linked file:\n%s", r.Text)
	}
	d, ok := r.Data.(*CodeResult)
	if !ok || !d.ArtifactsCollected || len(d.Artifacts) != 3 || d.Interpreter != "python3" || len(d.Inputs) != 2 {
		t.Fatalf("data %+v", r.Data)
	}
	saved, _ := filepath.Glob(filepath.Join(f.root, "outputs", "run-*", "big.bin"))
	if len(saved) != 1 {
		t.Errorf("saved %q", saved)
	}
	if r.Audit.Permissions[0] != "shell:python3" || r.Audit.Backend == "" {
		t.Errorf("audit %+v", r.Audit)
	}
}

func TestRunCodeEmptyOutputs(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	needCode(t, f, "sh")
	r := f.call("run_code", obj_{"language": "sh", "code": "echo hi"})
	wantKind(t, r, outcome.OK)
	if !strings.Contains(r.Text, "--- outputs: none") {
		t.Errorf("text:\n%s", r.Text)
	}
	b, _ := json.Marshal(r.Data)
	if !strings.Contains(string(b), `"artifacts":[]`) {
		t.Errorf("data %s", b)
	}
}

func TestRunCodeMissingInterpreter(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	sb, err := ringfence.New(ringfence.Config{Root: root, Env: map[string]string{"PATH": t.TempDir()},
		Defaults: policy.Defaults{Mode: policy.WorkspaceWrite, Baseline: policy.Read}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	set := New(sb, Options{})
	r := set.Call(t.Context(), "run_code", raw(t, obj_{"language": "javascript", "code": "1"}))
	wantKind(t, r, outcome.MissingProgram)
	if r.Outcome.Program != "node" || !strings.Contains(r.Text, `"node" is not installed`) {
		t.Errorf("%+v\n%s", r.Outcome, r.Text)
	}
}

func TestRunCodeTimeoutAndFailure(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	needCode(t, f, "bash")
	r := f.call("run_code", obj_{"language": "bash", "code": "sleep 30", "timeout_seconds": 1})
	wantKind(t, r, outcome.TimedOut)
	r = f.call("run_code", obj_{"language": "bash", "code": "# " + codeMarker + "\necho bad >&2; exit 3"})
	wantKind(t, r, outcome.NonzeroExit)
	if !strings.Contains(r.Text, "exit code 3") || strings.Contains(r.Text, codeMarker) {
		t.Errorf("text:\n%s", r.Text)
	}
}

func TestRunCodeReadOnlySession(t *testing.T) {
	f := newFixture(t, setup{mode: policy.ReadOnly})
	needCode(t, f, "sh")
	r := f.call("run_code", obj_{"language": "sh", "code": "true"})
	wantKind(t, r, outcome.Unavailable)
	if !strings.Contains(r.Text, "read-only") {
		t.Errorf("text:\n%s", r.Text)
	}
}

func TestRunCodeFollowsTheClassifier(t *testing.T) {
	c, err := execpolicy.Config{Rules: []execpolicy.Rule{
		{Prefix: []string{"node"}, Decision: "deny", Reason: "test rule", Match: [][]string{{"node", "main.js"}}},
		{Prefix: []string{"bash"}, Decision: "ask", Reason: "test rule", Match: [][]string{{"bash", "main.sh"}}},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f := newFixture(t, setup{mode: policy.WorkspaceWrite, opts: Options{Classifier: c, Gate: g}})
	needCode(t, f, "bash")
	needCode(t, f, "javascript")
	r := f.call("run_code", obj_{"language": "javascript", "code": "console.log(1)"})
	wantKind(t, r, outcome.DeniedByPolicy)
	r = f.call("run_code", obj_{"language": "bash", "code": "echo " + codeMarker})
	wantKind(t, r, outcome.OK)
	if g.count() != 1 || !strings.Contains(g.last().Summary, codeMarker) || g.last().Tool != "run_code" || r.Audit.Gate != gateOnce {
		t.Errorf("gate %d %+v audit %+v", g.count(), g.asked, r.Audit)
	}
	if strings.Contains(r.Text, "wants to run") {
		t.Error("the person-facing summary reached the model")
	}
	noGate := newFixture(t, setup{mode: policy.WorkspaceWrite, opts: Options{Classifier: c}})
	wantKind(t, noGate.call("run_code", obj_{"language": "bash", "code": "true"}), outcome.GateUnavailable)
}

// FuzzRunCodeArgs: any bytes as run_code's arguments are decoded without
// a panic; refused ones carry an outcome; accepted ones declare the
// interpreter first and only workspace paths after it.
func FuzzRunCodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"language":"python","code":"print(1)"}`,
		`{"language":"sh","code":"x","inputs":[{"name":"a/b","from_workspace":"/workspace/c"}],"timeout_seconds":3}`,
		`{"language":"bash","code":"x","inputs":[{"name":"a","content":"y"},{"name":"b","from_workspace":"../x"}]}`,
		`{"language":"javascript","code":"x","inputs":[{"name":"a","content":null,"from_workspace":"d"}]}`,
		`{"language":"python","code":"x","inputs":[{"name":"a","Content":"y"}]}`,
		`{"language":"python","code":"x","inputs":[[]]}`, `[]`, `{"language":"python","code":"x","in_workspace":1}`,
	} {
		f.Add([]byte(s))
	}
	fx := newFixtureTB(f, setup{mode: policy.WorkspaceWrite})
	f.Fuzz(func(t *testing.T, args []byte) {
		perms, err := fx.set.Permissions("run_code", args)
		if err != nil {
			if _, ok := outcome.Of(err); !ok {
				t.Fatalf("refusal without an outcome: %v", err)
			}
			return
		}
		if len(perms) < 2 || !strings.HasPrefix(perms[0], permShell) {
			t.Fatalf("permissions %q", perms)
		}
		for _, p := range perms[1:] {
			rest, ok := strings.CutPrefix(p, permRead)
			if !ok {
				rest, ok = strings.CutPrefix(p, permWrite)
			}
			if !ok && p != permNet || ok && !strings.HasPrefix(rest, "/workspace") || slices.Contains(strings.Split(rest, "/"), "..") {
				t.Fatalf("permission %q", p)
			}
		}
	})
}
