package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// env is one server over a fresh workspace, with its audit trail in memory.
type env struct {
	t     *testing.T
	root  string
	sb    *sandbox.Local
	srv   *Server
	trail *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) records(t *testing.T, f audit.Filter) []audit.Record {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := audit.Read(bytes.NewReader(s.b.Bytes()), f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func newEnv(t *testing.T, opts tools.Options) *env {
	t.Helper()
	return newEnvNet(t, opts, policy.Network{})
}

// newEnvNet is newEnv with a network ceiling for commands.
func newEnvNet(t *testing.T, opts tools.Options, net policy.Network) *env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(sandbox.Config{Root: root, MountPath: "/workspace", Defaults: policy.Defaults{
		Mode: policy.WorkspaceWrite, Baseline: policy.Read, Network: net,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	trail := &syncBuffer{}
	aw := audit.NewWriter(trail)
	return &env{t: t, root: root, sb: sb, trail: trail, srv: NewServer(Config{Sandbox: sb, Tools: opts, Audit: aw, Version: "test"})}
}

func (e *env) needBackend() {
	e.t.Helper()
	if e.sb.Backend() == "" {
		testenv.Need(e.t, "a confinement backend", errors.New("ringfence found no backend on this host"))
	}
}

func (e *env) write(rel, content string) {
	e.t.Helper()
	p := filepath.Join(e.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// elicitor is a scripted person at the client.
type elicitor struct {
	mu      sync.Mutex
	action  string
	content map[string]any
	block   bool // wait until the server gives up
	asked   []string
	schemas []any // the requested schema of each question
}

func (el *elicitor) handle(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	el.mu.Lock()
	el.asked = append(el.asked, req.Params.Message)
	el.schemas = append(el.schemas, req.Params.RequestedSchema)
	action, content, block := el.action, el.content, el.block
	el.mu.Unlock()
	if block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &sdk.ElicitResult{Action: action, Content: content}, nil
}

func (el *elicitor) set(action, decision, note string) {
	el.mu.Lock()
	defer el.mu.Unlock()
	el.action, el.content = action, map[string]any{fieldDecision: decision, fieldNote: note}
}

func (el *elicitor) count() int {
	el.mu.Lock()
	defer el.mu.Unlock()
	return len(el.asked)
}

// connect opens an in-memory session; el nil means a client without the
// elicitation capability.
func (e *env) connect(el *elicitor) *sdk.ClientSession {
	e.t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := e.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { ss.Close() })
	return clientOver(e.t, ct, el)
}

func clientOver(t *testing.T, tr sdk.Transport, el *elicitor) *sdk.ClientSession {
	t.Helper()
	opts := &sdk.ClientOptions{}
	if el != nil {
		opts.ElicitationHandler = el.handle
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured content.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) (*sdk.CallToolResult, Structured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var st Structured
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("%s: structured content %s: %v", name, b, err)
	}
	// Every structured result matches the tool's output schema, and all
	// its names are snake_case.
	validateStructured(t, cs, name, b)
	return res, st
}

var outputSchemas sync.Map // *sdk.ClientSession → map[string]*jsonschema.Resolved

// validateStructured checks structured content (JSON) against the output
// schema the session listed for the tool, and its keys' spelling.
func validateStructured(t *testing.T, cs *sdk.ClientSession, name string, content []byte) {
	t.Helper()
	r := loadSchemas(t, cs)[name]
	if r == nil {
		return // an unknown tool: a protocol error, no content
	}
	var doc any
	if err := json.Unmarshal(content, &doc); err != nil {
		t.Fatalf("%s: structured content is not JSON: %v", name, err)
	}
	if err := r.Validate(doc); err != nil {
		t.Fatalf("%s: structured content does not match the output schema: %v\n%s", name, err, content)
	}
	if bad := nonSnakeKeys(doc, ""); len(bad) > 0 {
		t.Fatalf("%s: structured content names not in snake_case: %v", name, bad)
	}
}

// loadSchemas lists the session's tools once (a test that counts the
// requests a call makes loads them first) and resolves their output
// schemas.
func loadSchemas(t *testing.T, cs *sdk.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	v, ok := outputSchemas.Load(cs)
	if !ok {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*jsonschema.Resolved{}
		for _, tl := range res.Tools {
			raw, _ := json.Marshal(tl.OutputSchema)
			var sc jsonschema.Schema
			if err := json.Unmarshal(raw, &sc); err != nil {
				t.Fatalf("%s: output schema: %v", tl.Name, err)
			}
			r, err := sc.Resolve(nil)
			if err != nil {
				t.Fatalf("%s: output schema does not resolve: %v", tl.Name, err)
			}
			m[tl.Name] = r
		}
		v, _ = outputSchemas.LoadOrStore(cs, m)
	}
	return v.(map[string]*jsonschema.Resolved)
}

// nonSnakeKeys lists every object key of a JSON document that is not
// snake_case.
func nonSnakeKeys(v any, at string) []string {
	var bad []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !isSnake(k) {
				bad = append(bad, at+k)
			}
			bad = append(bad, nonSnakeKeys(e, at+k+".")...)
		}
	case []any:
		for _, e := range v {
			bad = append(bad, nonSnakeKeys(e, at+"[].")...)
		}
	}
	return bad
}

// isSnake: lower-case letters, digits and single inner underscores.
func isSnake(k string) bool {
	if k == "" || k[0] == '_' || k[len(k)-1] == '_' || strings.Contains(k, "__") {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func wantKind(t *testing.T, r *sdk.CallToolResult, st Structured, kind string, isErr bool) {
	t.Helper()
	if string(st.Outcome.Kind) != kind || r.IsError != isErr {
		t.Fatalf("kind %q isError %v, want %q %v; text:\n%s", st.Outcome.Kind, r.IsError, kind, isErr, text(r))
	}
}
