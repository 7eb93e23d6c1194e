package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/tools"
)

func TestListTools(t *testing.T) {
	e := newEnv(t, tools.Options{})
	cs := e.connect(nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range res.Tools {
		got = append(got, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: incomplete definition", tl.Name)
		}
	}
	var want []string
	for _, d := range tools.New(e.sb, tools.Options{}).Definitions() {
		want = append(want, d.Name)
	}
	if !slices.Equal(got, want) || !slices.Contains(got, "run_command") {
		t.Fatalf("tools = %v, want %v", got, want)
	}
	// The schema is the tool layer's own, untouched.
	b, _ := json.Marshal(res.Tools[0].InputSchema)
	if !strings.Contains(string(b), `"additionalProperties":false`) {
		t.Errorf("input schema lost its bounds: %s", b)
	}
}

var png = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"

func TestCallEachFileTool(t *testing.T) {
	e := newEnv(t, tools.Options{})
	e.write("src/a.go", "package a\n\nfunc A() {}\n")
	e.write("img.png", png)
	e.write("doc.pdf", "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
	cs := e.connect(nil)

	r, st := call(t, cs, "write_file", map[string]any{"path": "notes.txt", "content": "hello\nworld\n"})
	wantKind(t, r, st, "ok", false)
	r, st = call(t, cs, "read_file", map[string]any{"path": "notes.txt"})
	wantKind(t, r, st, "ok", false)
	if !strings.Contains(text(r), "hello") || st.Data == nil {
		t.Fatalf("read_file: %s / %v", text(r), st.Data)
	}
	r, st = call(t, cs, "edit_file", map[string]any{"path": "notes.txt", "old_string": "world", "new_string": "there"})
	wantKind(t, r, st, "ok", false)
	r, st = call(t, cs, "list_files", map[string]any{"path": "src"})
	wantKind(t, r, st, "ok", false)
	r, st = call(t, cs, "glob_files", map[string]any{"pattern": "**/*.go"})
	wantKind(t, r, st, "ok", false)
	if !strings.Contains(text(r), "a.go") {
		t.Fatalf("glob: %s", text(r))
	}
	r, st = call(t, cs, "grep_files", map[string]any{"pattern": "func A"})
	wantKind(t, r, st, "ok", false)
	r, st = call(t, cs, "grep_files", map[string]any{"pattern": "nothing-here"})
	wantKind(t, r, st, "no-matches", false)

	r, st = call(t, cs, "read_media", map[string]any{"path": "img.png"})
	wantKind(t, r, st, "ok", false)
	img, ok := r.Content[len(r.Content)-1].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || string(img.Data) != png {
		t.Fatalf("read_media png: %#v", r.Content)
	}
	r, st = call(t, cs, "read_media", map[string]any{"path": "doc.pdf"})
	wantKind(t, r, st, "ok", false)
	res, ok := r.Content[len(r.Content)-1].(*sdk.EmbeddedResource)
	if !ok || res.Resource.MIMEType != "application/pdf" || res.Resource.URI != "file:///workspace/doc.pdf" || len(res.Resource.Blob) == 0 {
		t.Fatalf("read_media pdf: %#v", r.Content)
	}

	// A refused path: a tool error, with the outcome as data, no host root.
	r, st = call(t, cs, "read_file", map[string]any{"path": "../../etc/passwd"})
	wantKind(t, r, st, "path-rejected", true)
	if strings.Contains(text(r), e.root) {
		t.Fatalf("host root in the text: %s", text(r))
	}

	// The trail shows every call, in order, with contents removed.
	recs := e.trail.records(t, audit.Filter{})
	var names []string
	for _, rec := range recs {
		names = append(names, rec.Tool)
	}
	want := []string{"write_file", "read_file", "edit_file", "list_files", "glob_files", "grep_files", "grep_files", "read_media", "read_media", "read_file"}
	if !slices.Equal(names, want) {
		t.Fatalf("audit tools = %v, want %v", names, want)
	}
	if recs[0].Session == "" || recs[0].Policy == "" || recs[0].Args["path"] != "notes.txt" {
		t.Fatalf("record = %+v", recs[0])
	}
	if b, _ := json.Marshal(recs); strings.Contains(string(b), "hello") {
		t.Fatalf("audit holds file contents: %s", b)
	}
	if recs[len(recs)-1].Outcome != "path-rejected" {
		t.Fatalf("last outcome %q", recs[len(recs)-1].Outcome)
	}
}

func TestRunCommand(t *testing.T) {
	e := newEnv(t, tools.Options{})
	e.needBackend()
	cs := e.connect(nil)
	r, st := call(t, cs, "run_command", map[string]any{"command": "echo hi-there; pwd"})
	wantKind(t, r, st, "ok", false)
	if !strings.Contains(text(r), "hi-there") || strings.Contains(text(r), e.root) {
		t.Fatalf("run_command text:\n%s", text(r))
	}
	r, st = call(t, cs, "run_command", map[string]any{"command": "exit 3"})
	wantKind(t, r, st, "nonzero-exit", true)
	recs := e.trail.records(t, audit.Filter{Tool: "run_command"})
	if len(recs) != 2 || recs[0].Backend == "" || recs[0].Enforcement == nil || recs[0].Args["command"] != "echo hi-there; pwd" || recs[0].Classified == "" {
		t.Fatalf("records = %+v", recs)
	}
}

func TestBadInputIsAnsweredNotFatal(t *testing.T) {
	e := newEnv(t, tools.Options{MaxArgBytes: 64 << 10})
	cs := e.connect(nil)
	ctx := context.Background()

	// An unknown tool is a protocol error.
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "rm_rf", Arguments: map[string]any{}}); err == nil {
		t.Fatal("unknown tool: no error")
	}
	// Wrong types, unknown fields, missing fields, oversized: tool errors.
	for _, args := range []any{
		map[string]any{"path": 42},
		map[string]any{"path": "a", "approved": true},
		map[string]any{},
		map[string]any{"path": "a", "content": strings.Repeat("x", 100<<10)},
		[]int{1, 2},
	} {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: args})
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !r.IsError || !strings.Contains(text(r), "") {
			t.Fatalf("%v: not a tool error", args)
		}
		var st Structured
		b, _ := json.Marshal(r.StructuredContent)
		_ = json.Unmarshal(b, &st)
		if st.Outcome.Kind != "invalid-arguments" {
			t.Fatalf("%.40v: kind %q", args, st.Outcome.Kind)
		}
	}
	// The server still serves.
	r, st := call(t, cs, "list_files", map[string]any{"path": "."})
	wantKind(t, r, st, "ok", false)
}
