package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// fixture is a Set over a fresh workspace.
type fixture struct {
	t    testing.TB
	root string // canonical host root
	sb   *ringfence.Local
	set  *Set
}

type setup struct {
	mode    policy.Mode
	entries []policy.Entry // relative paths, made absolute under the root
	opts    Options
	backend string // Config.Backend; "" is auto
	network policy.Network
}

func newFixture(t *testing.T, su setup) *fixture { return newFixtureTB(t, su) }

func newFixtureTB(t testing.TB, su setup) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var entries []policy.Entry
	for _, e := range su.entries {
		entries = append(entries, policy.Entry{Path: filepath.Join(root, e.Path), Access: e.Access})
	}
	sb, err := ringfence.New(ringfence.Config{Root: root, Backend: su.backend, Defaults: policy.Defaults{
		Mode: su.mode, Baseline: policy.Read, Entries: entries, Network: su.network,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return &fixture{t: t, root: root, sb: sb, set: New(sb, su.opts)}
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(f.root, rel))
	return string(b), err == nil
}

func (f *fixture) call(name string, args any) Result {
	f.t.Helper()
	return f.set.Call(context.Background(), name, raw(f.t, args))
}

// raw turns a map (or a string of JSON) into arguments.
func raw(t testing.TB, args any) json.RawMessage {
	if s, ok := args.(string); ok {
		return json.RawMessage(s)
	}
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type obj_ = map[string]any

func wantKind(t *testing.T, r Result, k outcome.Kind) {
	t.Helper()
	if r.Outcome.Kind != k {
		t.Fatalf("kind = %q, want %q; text:\n%s", r.Outcome.Kind, k, r.Text)
	}
}

// fakeGate answers from a script and records the questions.
type fakeGate struct {
	mu     sync.Mutex
	answer Answer
	err    error
	block  bool          // wait for the context to end
	hang   chan struct{} // ignore the context and wait for this
	asked  []Question
}

func (g *fakeGate) Ask(ctx context.Context, q Question) (Answer, error) {
	g.mu.Lock()
	g.asked = append(g.asked, q)
	a, err, block, hang := g.answer, g.err, g.block, g.hang
	g.mu.Unlock()
	switch {
	case hang != nil:
		<-hang
	case block:
		<-ctx.Done()
		return Answer{}, ctx.Err()
	}
	return a, err
}

func (g *fakeGate) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.asked)
}

func (g *fakeGate) last() Question {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.asked[len(g.asked)-1]
}
