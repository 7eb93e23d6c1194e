package coderun

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

type testSandbox struct {
	t    *testing.T
	root string
	sb   *sandbox.Local
}

type config struct {
	mode    policy.Mode
	entries []policy.Entry // relative to the root
	env     map[string]string
	backend string
}

// newSandbox is a confining Local over a fresh workspace; it skips (or
// fails under RINGFENCE_REQUIRE_ALL) where no backend works.
func newSandbox(t *testing.T, c config) *testSandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var entries []policy.Entry
	for _, e := range c.entries {
		entries = append(entries, policy.Entry{Path: filepath.Join(root, e.Path), Access: e.Access})
	}
	sb, err := sandbox.New(sandbox.Config{Root: root, Backend: c.backend, Env: c.env, Defaults: policy.Defaults{
		Mode: c.mode, Baseline: policy.Read, Entries: entries,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	if sb.Backend() == "" && c.mode != policy.DangerFullAccess {
		testenv.Need(t, "a confinement backend", errNoBackend)
	}
	return &testSandbox{t: t, root: root, sb: sb}
}

type noBackend struct{}

func (noBackend) Error() string { return "no confinement backend works on this host" }

var errNoBackend = noBackend{}

func (s *testSandbox) write(rel, content string) {
	s.t.Helper()
	p := filepath.Join(s.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *testSandbox) run(req Request) *Result {
	s.t.Helper()
	res, err := Run(context.Background(), s.sb, req)
	if err != nil {
		s.t.Fatalf("Run: %v", err)
	}
	return res
}

// needInterp skips (or fails under RINGFENCE_REQUIRE_ALL, where .ci/run
// installs every interpreter) when the language's program is missing.
func needInterp(t *testing.T, sb *sandbox.Local, language string) {
	t.Helper()
	_, _, err := Interpreter(sb, language)
	testenv.Need(t, "interpreter for "+language, err)
}

func artifact(t *testing.T, res *Result, name string) Artifact {
	t.Helper()
	for _, a := range res.Artifacts {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("no artifact %q in %+v", name, names(res))
	return Artifact{}
}

func names(res *Result) []string {
	var out []string
	for _, a := range res.Artifacts {
		out = append(out, a.Name+"("+a.Refused+")")
	}
	return out
}

func wantKind(t *testing.T, res *Result, kind string) {
	t.Helper()
	if string(res.Exec.Kind) != kind {
		t.Fatalf("kind %q, want %q; stdout %q stderr %q narration %q runner %q", res.Exec.Kind, kind,
			res.Exec.Stdout, res.Exec.Stderr, res.Exec.Narration, res.Exec.RunnerError)
	}
}

func str(s string) []byte { return []byte(s) }
