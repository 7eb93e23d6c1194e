//go:build linux

package files

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/policy"
)

const sentinel = "OUTSIDE-SENTINEL"

// fix is a workspace root and, beside it, an outside directory holding a
// sentinel, served by a Handler under the agent defaults (workspace-write,
// protected paths) plus a denied secret/ directory.
type fix struct {
	base, root, outside string
	h                   *Handler
	srv                 *httptest.Server
}

var testEnviron = []string{
	"SANDBOX_ID=sbx-123", "SANDBOX_WORKSPACE=/workspace", "SANDBOX_API_TOKEN=t", "SANDBOX_SSH_KEY=k",
	"SANDBOX_DB_PASS=p", "SANDBOX_GH=ghp_0123456789abcdefghij", "SANDBOX_URL=https://u:p@host/x",
	"SANDBOX_TLS_CERT=c", "SANDBOX_AUTH_HEADER=a", "SANDBOX_=empty", "KUBERNETES_SERVICE_HOST=10.0.0.1",
	"SANDBOX_ID=second", "MALFORMED",
}

func newFix(t testing.TB, edit func(*Options)) fix {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	f := fix{base: base, root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	writeFile(t, filepath.Join(f.outside, "sentinel"), sentinel)
	writeFile(t, filepath.Join(f.root, "a.txt"), "alpha\n")
	writeFile(t, filepath.Join(f.root, "secret/key"), "hidden\n")
	writeFile(t, filepath.Join(f.root, ".git/hooks/pre-commit"), "#!/bin/sh\n")
	writeFile(t, filepath.Join(f.root, ".git/config"), "[core]\n")
	d := policy.AgentDefaults()
	d.Root = f.root
	d.Entries = []policy.Entry{{Path: f.root + "/secret", Access: policy.Deny}}
	pol, err := policy.Resolve(policy.Request{}, d)
	must(t, err)
	ws, err := workspace.New(pol, workspace.Options{})
	must(t, err)
	t.Cleanup(func() { _ = ws.Close() })
	opts := Options{Root: f.root, Workspace: ws, Environ: func() []string { return testEnviron }}
	if edit != nil {
		edit(&opts)
	}
	f.h, err = NewHandler(opts)
	must(t, err)
	f.srv = httptest.NewServer(f.h)
	t.Cleanup(f.srv.Close)
	return f
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(body), 0o644))
}

// reply is one answer, read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (f fix) do(t testing.TB, method, target string, body io.Reader, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+target, body)
	must(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.srv.Client().Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return reply{resp.StatusCode, resp.Header, b}
}

func (f fix) put(t testing.TB, target, body string) reply {
	t.Helper()
	return f.do(t, http.MethodPut, target, strings.NewReader(body))
}

// errorCode decodes the spec's error body, failing on any other shape.
func (r reply) errorCode(t testing.TB) string {
	t.Helper()
	var e Error
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Code == "" || e.Message == "" {
		t.Errorf("status %d: body %q is not an error body: %v", r.status, r.body, err)
	}
	return e.Code
}

// outcomeKind is the kind in the Ringfence-Outcome header.
func (r reply) outcomeKind(t testing.TB) string {
	t.Helper()
	var o struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal([]byte(r.header.Get(wire.OutcomeHeader)), &o); err != nil {
		t.Errorf("outcome header %q: %v", r.header.Get(wire.OutcomeHeader), err)
	}
	return o.Kind
}

// checkOutside asserts the outside directory holds only its sentinel,
// unchanged.
func (f fix) checkOutside(t testing.TB) {
	t.Helper()
	ents, _ := os.ReadDir(f.outside)
	if len(ents) != 1 {
		t.Errorf("outside holds %d entries, want only the sentinel", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "sentinel")); string(b) != sentinel {
		t.Errorf("sentinel changed: %q", b)
	}
}

// checkNoTemp asserts no temp file of an atomic write is left.
func (f fix) checkNoTemp(t testing.TB) {
	t.Helper()
	_ = filepath.Walk(f.base, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(filepath.Base(p), ".ringfence-") {
			t.Errorf("temp file left: %s", p)
		}
		return nil
	})
}
