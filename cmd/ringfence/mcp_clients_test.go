package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"
)

// The real MCP clients of issue 18 — the MCP Inspector CLI and the
// official TypeScript SDK client — drive `ringfence mcp` over stdio and
// --http and exercise every tool. They are installed from
// internal/mcp/testdata/clients (package.json and package-lock.json) by
// `npm ci` in .ci/run; the tests never download anything themselves.
// The Inspector is v1: v2 needs node 22, and CI's node is 20.

const clientsDir = "../../internal/mcp/testdata/clients"

// needClients returns node and the clients' directory, or fails (in CI)
// or skips when they are not installed.
func needClients(t *testing.T) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	testenv.Need(t, "node", err)
	dir, err := filepath.Abs(clientsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"@modelcontextprotocol/sdk/package.json", "@modelcontextprotocol/inspector/package.json"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p)); err != nil {
			testenv.Need(t, "the MCP test clients (cd internal/mcp/testdata/clients && npm ci)", err)
		}
	}
	return node, dir
}

// clientCase is one call every client makes, and what must come of it.
type clientCase struct {
	tool    string
	args    map[string]any
	kind    string // the structured outcome's kind
	isError bool
	text    string // a part of the text the model reads
}

// png is a 1×1 image for read_media.
const png = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82"

const clientNote = "keep the hook short"

// clientWorkspace makes a workspace with what the calls use.
func clientWorkspace(t *testing.T) string {
	ws := workspace(t)
	for name, content := range map[string]string{"go.mod": "module x\n", "img.png": png, ".git/hooks/.keep": ""} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// clientCases are every tool, then the refusals a client must see as tool
// errors with their outcome. hook is what writing a protected path gives
// with this client: approved (with the person's note) or refused.
func clientCases(ws string, hook clientCase) []clientCase {
	hook.tool, hook.args = "write_file", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}
	return []clientCase{
		{tool: "list_files", args: map[string]any{}, kind: "ok", text: "go.mod"},
		{tool: "read_file", args: map[string]any{"path": "go.mod", "max_bytes": 100}, kind: "ok", text: "module x"},
		{tool: "write_file", args: map[string]any{"path": "notes.txt", "content": "hi there\n"}, kind: "ok", text: "/workspace/notes.txt"},
		{tool: "edit_file", args: map[string]any{"path": "notes.txt", "old_string": "hi", "new_string": "hello"}, kind: "ok", text: "notes.txt"},
		{tool: "glob_files", args: map[string]any{"pattern": "*.txt"}, kind: "ok", text: "/workspace/notes.txt"},
		{tool: "grep_files", args: map[string]any{"pattern": "hello"}, kind: "ok", text: "hello there"},
		{tool: "read_media", args: map[string]any{"path": "img.png"}, kind: "ok"},
		{tool: "run_command", args: map[string]any{"command": "cat go.mod", "timeout_seconds": 60}, kind: "ok", text: "module x"},
		{tool: "run_code", args: map[string]any{"language": "sh", "code": "echo made > \"$RINGFENCE_OUTPUT_DIR/o.txt\"", "timeout_seconds": 60}, kind: "ok", text: "o.txt"},
		hook,
		{tool: "read_file", args: map[string]any{"path": ws + "/go.mod"}, kind: "path-rejected", isError: true, text: `"` + ws + `/go.mod"`},
		{tool: "read_file", args: map[string]any{"path": "go.mod", "maxBytes": 10}, kind: "invalid-arguments", isError: true, text: "max_bytes"},
		// Each Inspector call is an MCP session of its own, so no process
		// outlives it: the process tools are exercised on what is there.
		{tool: "list_processes", args: map[string]any{}, kind: "ok"},
		{tool: "write_stdin", args: map[string]any{"process_id": 999, "chars": "x"}, kind: "invalid-arguments", isError: true, text: "no process 999"},
		{tool: "kill_process", args: map[string]any{"process_id": 999}, kind: "invalid-arguments", isError: true, text: "no process 999"},
	}
}

// toolResult is a tools/call result as the clients print it.
type toolResult struct {
	Content []struct {
		Type, Text string
	} `json:"content"`
	Structured struct {
		Outcome struct {
			Kind, Path, Note string
		} `json:"outcome"`
		Data json.RawMessage `json:"data"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func checkResult(t *testing.T, c clientCase, r toolResult) {
	t.Helper()
	o := r.Structured.Outcome
	if o.Kind != c.kind || r.IsError != c.isError || !strings.Contains(r.text(), c.text) {
		t.Errorf("%s %v: kind %q isError %v, want %q %v (text %q):\n%s", c.tool, c.args, o.Kind, r.IsError, c.kind, c.isError, c.text, r.text())
	}
	if c.kind == "ok" && len(r.Structured.Data) == 0 {
		t.Errorf("%s: an ok result without data", c.tool)
	}
	if c.kind == "path-rejected" && !strings.HasSuffix(o.Path, "/go.mod") {
		t.Errorf("%s: the refusal names %q, not the path given", c.tool, o.Path)
	}
}

// listedTool is a tool as tools/list gives it.
type listedTool struct {
	Name, Title  string
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  *struct {
		Title           string
		ReadOnlyHint    *bool `json:"readOnlyHint"`
		DestructiveHint *bool `json:"destructiveHint"`
		IdempotentHint  *bool `json:"idempotentHint"`
		OpenWorldHint   *bool `json:"openWorldHint"`
	} `json:"annotations"`
}

// wantHints: readOnly, destructive, idempotent, openWorld per tool.
var wantHints = map[string][4]bool{
	"read_file": {true, false, true, false}, "read_media": {true, false, true, false},
	"list_files": {true, false, true, false}, "glob_files": {true, false, true, false},
	"grep_files": {true, false, true, false},
	"write_file": {false, true, true, false}, "edit_file": {false, true, false, false},
	"run_command": {false, true, false, true}, "run_code": {false, true, false, true},
	// The process tools (on by default on the linux backend).
	"write_stdin": {false, true, false, false}, "kill_process": {false, true, false, false},
	"list_processes": {true, false, true, false},
}

func checkListing(t *testing.T, tools []listedTool) {
	t.Helper()
	if len(tools) != len(wantHints) {
		t.Fatalf("%d tools listed, want %d", len(tools), len(wantHints))
	}
	for _, tl := range tools {
		a := tl.Annotations
		if tl.Title == "" || len(tl.OutputSchema) == 0 || a == nil || a.Title != tl.Title ||
			a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: title %q, output schema %d bytes, annotations %+v", tl.Name, tl.Title, len(tl.OutputSchema), a)
			continue
		}
		got := [4]bool{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
		if got != wantHints[tl.Name] {
			t.Errorf("%s: hints %v, want %v", tl.Name, got, wantHints[tl.Name])
		}
	}
}

// serverCommand is `ringfence mcp` over ws as a process: this test binary
// acting as the CLI (TestMain).
func serverCommand(t *testing.T, ws string) (string, []string, map[string]string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe, []string{"mcp", "--root", ws}, map[string]string{cliMainEnv: "1", "XDG_CONFIG_HOME": t.TempDir()}
}

// httpServerFor starts `ringfence mcp --http` over ws with an agent token
// and the person's approver token.
func httpServerFor(t *testing.T, ws string) (url, agent, person string) {
	dir := t.TempDir()
	agent, person = "agent-token-0123456789abcdef", "person-token-0123456789abcdef"
	for name, tok := range map[string]string{"agent": agent, "person": person} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(tok), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := startHTTP(t, "--root", ws, "--http", "127.0.0.1:0",
		"--token-file", filepath.Join(dir, "agent"), "--approver-token-file", filepath.Join(dir, "person"))
	return s.url, agent, person
}

func runNode(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(args[:min(len(args), 6)], " "), err, out.Bytes(), errb.Bytes())
	}
	return out.Bytes()
}

// TestMCPTypeScriptSDKClient: the official TypeScript SDK client lists
// the tools (titles, annotations, output schemas), reads the server's
// instructions and calls every tool, over stdio and over --http; its
// callTool checks each structured result against the tool's output
// schema (ajv), so a mismatch is an error here. It answers the approval
// form with a note, which must reach the model.
func TestMCPTypeScriptSDKClient(t *testing.T) {
	node, dir := needClients(t)
	needBackend(t, "")
	approved := clientCase{kind: "ok", text: clientNote}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ws := clientWorkspace(t)
			cases := clientCases(ws, approved)
			plan := map[string]any{"transport": transport, "note": clientNote}
			if transport == "stdio" {
				cmd, args, env := serverCommand(t, ws)
				plan["command"], plan["args"], plan["env"] = cmd, args, env
			} else {
				url, _, person := httpServerFor(t, ws)
				plan["url"], plan["token"] = url, person // the person's client may approve
			}
			var calls [][]any
			for _, c := range cases {
				calls = append(calls, []any{c.tool, c.args})
			}
			plan["calls"] = calls
			raw, _ := json.Marshal(plan)
			out := runNode(t, dir, node, "sdk_client.mjs", string(raw))
			var rep struct {
				Instructions string
				Tools        []listedTool
				Calls        []struct {
					Name   string
					Result *toolResult
					Error  string
				}
				Forms []struct {
					RequestedSchema json.RawMessage `json:"requestedSchema"`
				}
			}
			if err := json.Unmarshal(out, &rep); err != nil {
				t.Fatalf("report: %v\n%s", err, out)
			}
			checkListing(t, rep.Tools)
			if !strings.Contains(rep.Instructions, "/workspace") || !strings.Contains(rep.Instructions, "approve") {
				t.Errorf("instructions: %q", rep.Instructions)
			}
			if len(rep.Calls) != len(cases) {
				t.Fatalf("%d calls reported, want %d", len(rep.Calls), len(cases))
			}
			for i, c := range cases {
				got := rep.Calls[i]
				if got.Error != "" || got.Result == nil {
					t.Errorf("%s: the SDK refused the result: %s", c.tool, got.Error)
					continue
				}
				checkResult(t, c, *got.Result)
				if c.tool == "write_file" && c.text == clientNote && got.Result.Structured.Outcome.Note != clientNote {
					t.Errorf("the note is not in the structured outcome: %+v", got.Result.Structured.Outcome)
				}
			}
			if len(rep.Forms) != 1 {
				t.Fatalf("%d approval forms, want 1", len(rep.Forms))
			}
			form := string(rep.Forms[0].RequestedSchema)
			if !strings.Contains(form, `"oneOf"`) || strings.Contains(form, "enumNames") {
				t.Errorf("approval form: %s", form)
			}
		})
	}
}

// TestMCPInspectorCLI: the MCP Inspector CLI lists the tools and calls
// every one, over stdio and --http. It declares no elicitation, so
// writing the protected path is refused as final (no-approver) on stdio;
// over HTTP with the agent's token it has no gate at all, and the
// policy's own refusal stands.
func TestMCPInspectorCLI(t *testing.T) {
	node, dir := needClients(t)
	needBackend(t, "")
	inspector := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "cli", "build", "cli.js")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ws := clientWorkspace(t)
			var target []string
			hook := clientCase{kind: "gate-unavailable", isError: true, text: "cannot approve"}
			if transport == "stdio" {
				cmd, args, env := serverCommand(t, ws)
				for k, v := range env {
					target = append(target, "-e", k+"="+v)
				}
				target = append(append(target, "--cli", cmd), args...)
			} else {
				url, agent, _ := httpServerFor(t, ws)
				target = []string{"--cli", url, "--transport", "http", "--header", "Authorization: Bearer " + agent}
				hook = clientCase{kind: "denied-by-policy", isError: true, text: "pre-commit"}
			}
			inspect := func(args ...string) []byte {
				return runNode(t, dir, append(append([]string{node, inspector}, target...), args...)...)
			}
			var list struct{ Tools []listedTool }
			if err := json.Unmarshal(inspect("--method", "tools/list"), &list); err != nil {
				t.Fatal(err)
			}
			checkListing(t, list.Tools)
			for _, c := range clientCases(ws, hook) {
				args := []string{"--method", "tools/call", "--tool-name", c.tool}
				for k, v := range c.args {
					b, _ := json.Marshal(v) // the CLI parses each value as JSON
					args = append(args, "--tool-arg", k+"="+string(b))
				}
				var r toolResult
				out := inspect(args...)
				if err := json.Unmarshal(out, &r); err != nil {
					t.Fatalf("%s: %v\n%s", c.tool, err, out)
				}
				checkResult(t, c, r)
			}
		})
	}
}
