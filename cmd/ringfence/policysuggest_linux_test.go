package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
)

// TestPolicySuggestThenRunsPass is issue 18's done-when for `policy
// suggest`: three runs refused for real — a write under a read-only
// entry, a host under --network domains on the linux backend, a command
// the table sends to a person (over MCP, which has none here) — become,
// through suggest --apply and a trust, a policy under which the same runs
// pass. A read of ~/.ssh, refused the same way, is never put in the file
// without --include-sensitive, said loudly, and is still refused at the
// end (the control that nothing opened it).
func TestPolicySuggestThenRunsPass(t *testing.T) {
	needBackend(t, "linux")
	needBackend(t, "landlock")
	if _, err := exec.LookPath("curl"); err != nil {
		testenv.Need(t, "curl", err)
	}
	root := workspace(t)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	home := os.Getenv("HOME") // TestMain's own temporary home
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(home, ".ssh", "id_suggest_test")
	if err := os.WriteFile(key, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "ro"), 0o755); err != nil {
		t.Fatal(err)
	}
	policyPath := filepath.Join(root, ".ringfence.toml")
	if err := os.WriteFile(policyPath, []byte(`mode = "workspace-write"

[network]
mode = "domains"
allow = ["example.invalid"]

[[entry]]
path = "ro"
access = "read"

[[entry]]
path = "~/.ssh"
access = "deny"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	trust := func() {
		t.Helper()
		if code, out, errOut := cli(t, root, "", "policy", "trust", policyPath); code != 0 {
			t.Fatalf("trust: %d %s %s", code, out, errOut)
		}
	}
	trust()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached\n") }))
	defer srv.Close()

	write := []string{"--backend", "linux", "--", "sh", "-c", "echo hi > ro/out.txt"}
	host := []string{"--backend", "linux", "--", "curl", "-fsS", "-m", "20", "--noproxy", "", srv.URL + "/"}
	secret := []string{"--backend", "landlock", "--network", "deny", "--", "cat", key}
	results := map[string]string{}
	refused := func(name string, args []string) {
		t.Helper()
		code, out, _ := cli(t, root, "", append([]string{"run", "--json", "--home", "read-only"}, args...)...)
		if code == 0 || !strings.Contains(out, `"kind": "denied"`) {
			t.Fatalf("%s: want a refusal first, got exit %d:\n%s", name, code, out)
		}
		results[name] = out
	}
	refused("write", write)
	refused("host", host)
	refused("secret", secret)
	if _, err := os.Stat(filepath.Join(root, "ro", "out.txt")); err == nil {
		t.Fatal("control: the refused write happened")
	}

	// The command: run_command over MCP, recorded in the audit trail.
	trail := filepath.Join(t.TempDir(), "audit.jsonl")
	callCurlVersion := func() *sdk.CallToolResult {
		t.Helper()
		ctx, cs, stop := startMCPWithConfig(t, "--root", root, "--backend", "linux", "--home", "read-only", "--audit", trail)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "curl --version"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := stop(); err != nil {
			t.Fatalf("mcp: %v", err)
		}
		return res
	}
	if res := callCurlVersion(); !res.IsError {
		t.Fatalf("control: curl --version ran without a person's approval: %+v", res)
	}

	inputs := t.TempDir()
	save := func(name, text string) string {
		p := filepath.Join(inputs, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 1. The write and the secret: the write goes in, ~/.ssh stays out, loudly.
	code, out, errOut := cli(t, root, "", "policy", "suggest", "--apply", save("files.json", results["write"]+results["secret"]))
	if code != 0 || !strings.Contains(out, `+access = "write"`) || !strings.Contains(out, "ringfence policy trust "+policyPath) {
		t.Fatalf("suggest files: %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "SENSITIVE") || !strings.Contains(errOut, ".ssh") || !strings.Contains(out, "NOT INCLUDED") {
		t.Fatalf("~/.ssh was not called out loudly:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	// 2. The host: a loopback address is sensitive too; without the flag
	// nothing is written, with it the rule is.
	hostInput := save("host.json", results["host"])
	before, _ := os.ReadFile(policyPath)
	code, out, errOut = cli(t, root, "", "policy", "suggest", "--apply", hostInput)
	if after, _ := os.ReadFile(policyPath); code != 0 || string(after) != string(before) || !strings.Contains(errOut, "SENSITIVE") {
		t.Fatalf("suggest host without --include-sensitive changed the file (%d):\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = cli(t, root, "", "policy", "suggest", "--include-sensitive", "--apply", hostInput)
	if code != 0 || !strings.Contains(out, srv.Listener.Addr().String()) {
		t.Fatalf("suggest host: %d\n%s\n%s", code, out, errOut)
	}
	// 3. The command, from the audit trail.
	code, out, errOut = cli(t, root, "", "policy", "suggest", "--apply", trail)
	if code != 0 || !strings.Contains(out, `+prefix = ["curl", "--version"]`) {
		t.Fatalf("suggest command: %d\n%s\n%s", code, out, errOut)
	}
	text, _ := os.ReadFile(policyPath)
	if strings.Contains(string(text), "id_suggest_test") || strings.Contains(string(text), `"~/.ssh/`) {
		t.Fatalf("~/.ssh reached the file silently:\n%s", text)
	}

	// Changed, the file is no longer trusted: it widens, so run refuses it.
	if code, _, errOut := cli(t, root, "", append([]string{"run"}, write...)...); code != exitPolicy || !strings.Contains(errOut, "policy trust") {
		t.Fatalf("an untrusted widening file was used: exit %d\n%s", code, errOut)
	}
	trust()

	for name, args := range map[string][]string{"write": write, "host": host} {
		code, res := runJSON(t, root, append([]string{"--home", "read-only"}, args...)...)
		if code != 0 || res.Kind != ringfence.KindSuccess {
			t.Fatalf("%s after the change: exit %d %+v", name, code, res)
		}
		if name == "host" && res.Stdout != "reached\n" {
			t.Fatalf("host: stdout %q", res.Stdout)
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "ro", "out.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("the write did not land: %q %v", b, err)
	}
	if res := callCurlVersion(); res.IsError {
		t.Fatalf("curl --version after the change: %+v", res.Content)
	}
	// The control: ~/.ssh is still refused.
	code, res := runJSON(t, root, append([]string{"--home", "read-only"}, secret...)...)
	if code == 0 || strings.Contains(res.Stdout, "not a key") {
		t.Fatalf("~/.ssh opened: exit %d %+v", code, res)
	}
}

// A refused run's note names policy suggest; a run refused nothing does not.
func TestRunNoteNamesSuggest(t *testing.T) {
	needBackend(t, "auto")
	root := workspace(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	os.Mkdir(filepath.Join(root, "ro"), 0o755)
	_, _, errOut := cli(t, root, "", "run", "--read-only", filepath.Join(root, "ro"), "--", "sh", "-c", "echo x > ro/a")
	if !strings.Contains(errOut, "ringfence policy suggest") {
		t.Fatalf("refused run's note: %s", errOut)
	}
	_, _, errOut = cli(t, root, "", "run", "--", "true")
	if strings.Contains(errOut, "policy suggest") {
		t.Fatalf("a run that was refused nothing mentions suggest: %s", errOut)
	}
}

// startMCPWithConfig is startMCP keeping the test's XDG_CONFIG_HOME (its
// trust store).
func startMCPWithConfig(t *testing.T, args ...string) (context.Context, *sdk.ClientSession, func() error) {
	t.Helper()
	cmd := newMCPCmd()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	cmd.SetArgs(args)
	cmd.SetIn(inR)
	cmd.SetOut(outW)
	var errBuf strings.Builder
	cmd.SetErr(&errBuf)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	done := make(chan error, 1)
	go func() { done <- cmd.Execute(); outW.Close() }()
	c := sdk.NewClient(&sdk.Implementation{Name: "suggest-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (server: %v)", err, drain(done))
	}
	return ctx, cs, func() error {
		cs.Close()
		inW.Close()
		if err := <-done; err != nil {
			return fmt.Errorf("%w (stderr: %s)", err, errBuf.String())
		}
		return nil
	}
}

// The same, for a person without root: suggest, apply, trust and the runs
// that then pass; the page in Chromium.
func TestSuggestAndAuditHTMLNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestPolicySuggestThenRunsPass|TestRunNoteNamesSuggest|TestAuditHTMLInChromium)$")
}
