package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/internal/coderun"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// codeArgs are run_code's arguments. Inputs are kept raw by the generic
// decoder (its schema language has no nested objects) and decoded
// exactly, field names case-sensitively, by prepareCode.
type codeArgs struct {
	Language       string            `json:"language"`
	Code           string            `json:"code"`
	Inputs         []json.RawMessage `json:"inputs"`
	TimeoutSeconds int64             `json:"timeout_seconds"`
	InWorkspace    bool              `json:"in_workspace"`

	in    []coderun.Input
	reads []string // the clean workspace paths of from_workspace inputs
	lang  coderun.Language
	prep  *prepared // the classification, read as run_command reads one
}

// The fields of one input, and its bounds.
var inputFields = map[string]bool{"name": true, "content": true, "from_workspace": true}

const maxCodeInputs = coderun.DefaultMaxInputs

// codeTool is a spec whose published schema says more than the generic
// one can (the language enum, the input objects); the decoder enforces
// the same: the generic checks, then prepareCode.
type codeTool struct {
	*spec[codeArgs]
}

func init() {
	register(func(s *Set) tool {
		sp := &spec[codeArgs]{
			set: s, tname: "run_code", title: "Run a program",
			hints: s.commandHints(), data: dataType[CodeResult](),
			desc: codeDescription(s),
			schema: obj([]string{"language", "code"}, map[string]*prop{
				"language":        str("python, javascript, bash or sh.", 1, 16),
				"code":            str("The program's source.", 1, s.opts.MaxArgBytes),
				"inputs":          array("Files staged read-only under inputs/ before the code runs.", &prop{Type: "object"}, 0, maxCodeInputs),
				"timeout_seconds": integer("Stop the code after this many seconds.", 1, int64(s.opts.MaxTimeout.Seconds())),
				"in_workspace":    boolean("Start in the workspace root instead of a fresh directory."),
			}),
			check: s.prepareCode,
			perms: s.codePermissions,
			run:   s.runCode,
		}
		return &codeTool{sp}
	})
}

func codeDescription(s *Set) string {
	return "Run a short program in python (python3), javascript (node), bash or sh, in the same sandbox as run_command " +
		"(same file access, network policy, limits and time limits: default " + strconv.Itoa(int(s.opts.DefaultTimeout.Seconds())) +
		" s, at most " + strconv.Itoa(int(s.opts.MaxTimeout.Seconds())) + " s). The code runs in a fresh empty directory that is deleted " +
		"afterwards (or, with in_workspace, in the workspace root " + s.nc.MountPath + "). " +
		"inputs are files staged read-only under inputs/ (path also in $RINGFENCE_INPUT_DIR): each has a name (a relative path) and " +
		"either content (text) or from_workspace (a file of the workspace to copy); inputs/manifest.json lists every input's name, " +
		"size and sha256. Write result files into the directory named by $RINGFENCE_OUTPUT_DIR (outputs/): after the run every " +
		"regular file there is returned with its name, size, MIME type and SHA-256 — small text files are shown, large files are " +
		"saved into the workspace under " + s.nc.MountPath + "/" + coderun.DefaultSaveLargeTo + "/ when it is writable; links and special files are refused. " +
		"Returns the exit code, stdout and stderr (long output is cut in the middle and says so), then the outputs."
}

// definition publishes the full schema: the language enum and the shape
// of one input, which prepareCode enforces.
func (t *codeTool) definition() Definition {
	d := t.spec.definition()
	var sc map[string]any
	if err := json.Unmarshal(d.InputSchema, &sc); err != nil {
		panic("tools: run_code schema: " + err.Error())
	}
	props := sc["properties"].(map[string]any)
	props["language"].(map[string]any)["enum"] = coderun.LanguageNames
	props["inputs"].(map[string]any)["items"] = map[string]any{
		"type": "object", "additionalProperties": false, "required": []string{"name"},
		"properties": map[string]any{
			"name":           map[string]any{"type": "string", "minLength": 1, "maxLength": coderun.MaxNameBytes, "description": "Where it is staged, relative to inputs/ (subdirectories allowed)."},
			"content":        map[string]any{"type": "string", "description": "The file's text. Give this or from_workspace."},
			"from_workspace": map[string]any{"type": "string", "minLength": 1, "maxLength": maxPathChars, "description": "A workspace file to copy in. Give this or content."},
		},
	}
	raw, err := json.Marshal(sc)
	if err != nil {
		panic("tools: run_code schema: " + err.Error())
	}
	d.InputSchema = raw
	return d
}

// prepareCode checks what the generic decoder cannot (the language, each
// input object) and classifies the command the code will run as.
func (s *Set) prepareCode(a *codeArgs) error {
	lang, ok := coderun.Languages[a.Language]
	if !ok {
		return fail(invalid(`"language" must be one of python, javascript, bash, sh`))
	}
	a.lang = lang
	for i, raw := range a.Inputs {
		in, read, err := s.decodeInput(i, raw)
		if err != nil {
			return err
		}
		a.in = append(a.in, in)
		if read != "" {
			a.reads = append(a.reads, read)
		}
	}
	argv := []string{lang.Program, lang.Script}
	a.prep = &prepared{argv: argv, class: s.opts.Classifier.Classify(argv)}
	a.prep.read(a.prep.class)
	return nil
}

// decodeInput reads one input object exactly: known fields only (named
// case-sensitively), a string name, exactly one of content and
// from_workspace, and a from_workspace path the model-path rule accepts.
func (s *Set) decodeInput(i int, raw json.RawMessage) (coderun.Input, string, error) {
	field := "inputs[" + strconv.Itoa(i) + "]"
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return coderun.Input{}, "", invalidf("field %s must be an object", field)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !inputFields[k] {
			return coderun.Input{}, "", unknownField(field+"."+k, k, func(n string) bool { return inputFields[n] })
		}
	}
	var name, content, from *string
	for k, dst := range map[string]**string{"name": &name, "content": &content, "from_workspace": &from} {
		if v, ok := fields[k]; ok && !isNull(v) {
			if bytes.TrimSpace(v)[0] != '"' || json.Unmarshal(v, dst) != nil {
				return coderun.Input{}, "", invalidf("field %s must be a string", field+"."+k)
			}
		}
	}
	switch {
	case name == nil || *name == "":
		return coderun.Input{}, "", invalidf("missing required field %s", field+".name")
	case (content == nil) == (from == nil):
		return coderun.Input{}, "", invalidf("field %s must give exactly one of content and from_workspace", field)
	case content != nil:
		return coderun.Input{Name: *name, Content: []byte(*content)}, "", nil
	}
	rel, err := s.rel(*from, false)
	if err != nil {
		return coderun.Input{}, "", err
	}
	return coderun.Input{Name: *name, FromWorkspace: rel}, rel, nil
}

// codePermissions: shell:<interpreter>, what the classification adds
// (network:* for a part that reaches the network, as for run_command),
// filesystem:read for each workspace input, and filesystem:write for the
// directory large outputs are saved to.
func (s *Set) codePermissions(a *codeArgs) ([]string, error) {
	out := []string{permShell + a.lang.Program}
	if a.prep.network {
		out = append(out, permNet)
	}
	for _, r := range a.reads {
		out = append(out, permRead+s.model(r))
	}
	return append(out, permWrite+s.model(coderun.DefaultSaveLargeTo)), nil
}

// runCode: the interpreter is looked up first (missing-interpreter, before
// any question), then the classification decides as for run_command
// (deny, or the gate for ask-approval), then the code runs confined.
func (s *Set) runCode(ctx context.Context, a *codeArgs) Result {
	p := a.prep
	audit := AuditInfo{Programs: p.programs, Capability: p.class.Capability.String(), Classified: p.class.Outcome.String(), Class: &p.class}
	stop := func(o outcome.Outcome) Result { return Result{Outcome: o, Audit: audit} }
	if _, _, err := coderun.Interpreter(s.sb, a.Language); err != nil {
		return stop(s.codeError(err))
	}
	if p.class.Outcome == execpolicy.Deny {
		return stop(outcome.Outcome{Kind: outcome.DeniedByPolicy, Axis: outcome.AxisExec, Program: p.class.Program, Detail: p.class.Capability.String()})
	}
	var ap *policy.Approval
	if p.class.Outcome == execpolicy.AskApproval {
		var o *outcome.Outcome
		if ap, o = s.approveCode(ctx, a, &audit); o != nil {
			return stop(*o)
		}
	}
	req := coderun.Request{
		Language: a.Language, Code: a.Code, Inputs: a.in, InWorkspace: a.InWorkspace,
		Timeout: s.opts.DefaultTimeout,
		Policy:  policy.Request{Approval: ap, SessionID: s.opts.SessionID},
	}
	if a.TimeoutSeconds > 0 {
		req.Timeout = time.Duration(a.TimeoutSeconds) * time.Second
	}
	res, err := coderun.Run(ctx, s.sb, req)
	if err != nil {
		return stop(s.codeError(err))
	}
	return s.codeResult(res, audit)
}

func (s *Set) codeError(err error) outcome.Outcome {
	if o, ok := outcome.Of(err); ok {
		return o
	}
	return s.execError(err, "")
}

// approveCode asks the gate as approveCommand does, with the code itself
// in the person-facing summary (never in the model's result), and keeps a
// session approval under the same (program, capability) keys.
func (s *Set) approveCode(ctx context.Context, a *codeArgs, audit *AuditInfo) (*policy.Approval, *outcome.Outcome) {
	return s.approveExec(ctx, a.prep, audit, func() Question {
		perms, _ := s.codePermissions(a)
		return Question{Tool: "run_code", Summary: codeSummary(a), Permissions: perms, Classification: a.prep.class}
	})
}

// codeSummary is the person-facing question: the code itself, and each
// part that needs approval and why. It is never shown to the model.
func codeSummary(a *codeArgs) string {
	summary := "run_code wants to run this " + a.Language + " code with " + a.lang.Program + ":\n" + quoteLong(a.Code)
	for _, part := range asking(a.prep.class) {
		summary += "\n- " + part.Program + " (" + part.Capability.String() + "): " + part.Reason
	}
	return summary
}
