package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/internal/auditview/headless"
)

// A session recorded by `ringfence mcp --audit`, written by `ringfence
// audit --html`, opened in headless Chromium: every call of the trail is
// on the page, in order, with its tool and outcome, and the tool filter
// (the URL's hash) shows exactly that tool's calls.
func TestAuditHTMLInChromium(t *testing.T) {
	needBackend(t, "auto")
	headless.Browser(t)
	root := workspace(t)
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hi\n"), 0o644)
	trail := filepath.Join(t.TempDir(), "audit.jsonl")
	ctx, cs, stop := startMCP(t, "--root", root, "--audit", trail)
	for _, c := range []sdk.CallToolParams{
		{Name: "read_file", Arguments: map[string]any{"path": "/workspace/hello.txt"}},
		{Name: "write_file", Arguments: map[string]any{"path": "../escape.txt", "content": "x"}},
		{Name: "run_command", Arguments: map[string]any{"command": "echo '<img src=x onerror=alert(1)>'"}},
		{Name: "run_command", Arguments: map[string]any{"command": "curl --version"}},
		{Name: "list_files", Arguments: map[string]any{"path": "/workspace"}},
	} {
		if _, err := cs.CallTool(ctx, &c); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(trail)
	recs, err := audit.Read(f, audit.Filter{})
	f.Close()
	if err != nil || len(recs) != 5 {
		t.Fatalf("trail: %d records, %v", len(recs), err)
	}
	page := filepath.Join(t.TempDir(), "audit.html")
	if out, err := runCobra(t, "audit", trail, "--html", page); err != nil {
		t.Fatalf("audit --html: %v\n%s", err, out)
	}
	if fi, err := os.Stat(page); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("page: %v %v", fi, err)
	}
	li := regexp.MustCompile(`<li class="call[^"]*"[^>]*>`)
	attr := func(tag, name string) string {
		m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(tag)
		if m == nil {
			return ""
		}
		return m[1]
	}
	dom := headless.DumpDOM(t, page, "")
	if !strings.Contains(dom, `<body data-filtered="1">`) {
		t.Fatal("the page's script did not run")
	}
	got := li.FindAllString(dom, -1)
	if len(got) != len(recs) {
		t.Fatalf("%d calls on the page, %d in the trail", len(got), len(recs))
	}
	for i, r := range recs {
		if attr(got[i], "data-tool") != r.Tool || attr(got[i], "data-outcome") != r.Outcome || strings.Contains(got[i], "hidden") {
			t.Errorf("call %d: %s, want %s/%s shown", i+1, got[i], r.Tool, r.Outcome)
		}
	}
	if !strings.Contains(dom, "&lt;img src=x onerror=alert(1)&gt;") || strings.Contains(dom, "<img") {
		t.Error("the command line is not shown as text")
	}
	if recs[1].Outcome != "path-rejected" || recs[3].Outcome != "gate-unavailable" {
		t.Errorf("the session did not record the refusals it was built for: %s, %s", recs[1].Outcome, recs[3].Outcome)
	}
	shown := 0
	for _, tag := range li.FindAllString(headless.DumpDOM(t, page, "tool=run_command"), -1) {
		if !strings.Contains(tag, ` hidden=""`) {
			shown++
			if attr(tag, "data-tool") != "run_command" {
				t.Errorf("filtered by tool, shown: %s", tag)
			}
		}
	}
	if shown != 2 {
		t.Errorf("tool=run_command shows %d calls, want 2", shown)
	}
}

func TestAuditHTMLRefusals(t *testing.T) {
	trail := filepath.Join(t.TempDir(), "a.jsonl")
	os.WriteFile(trail, []byte(`{"time":"t","session":"s","tool":"x","outcome":"ok","durationMs":1}`+"\n"), 0o600)
	if _, err := runCobra(t, "audit", trail, "--html", filepath.Join(t.TempDir(), "a.html"), "--json"); err == nil {
		t.Fatal("--html with --json accepted")
	}
	// A link planted under the page's name is not written through.
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o600)
	os.Symlink(target, filepath.Join(dir, "a.html"))
	if _, err := runCobra(t, "audit", trail, "--html", filepath.Join(dir, "a.html")); err == nil {
		t.Fatal("wrote through a symbolic link")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatal("the link's target changed")
	}
}
