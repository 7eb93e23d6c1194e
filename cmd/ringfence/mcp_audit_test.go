package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func runCobra(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newMCPCmd()
	if args[0] == "audit" {
		cmd = newAuditCmd()
	}
	var out bytes.Buffer
	cmd.SetArgs(args[1:])
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), err
}

func TestMCPRefusesPublicAddressWithoutToken(t *testing.T) {
	root := t.TempDir()
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		_, err := runCobra(t, "mcp", "--root", root, "--http", addr)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), "--token-file") {
			t.Fatalf("%s: err = %v", addr, err)
		}
	}
	if _, err := runCobra(t, "mcp", "--root", root, "--token", "a", "--token-file", "b"); err == nil {
		t.Fatal("--token and --token-file together accepted")
	}
	empty := filepath.Join(t.TempDir(), "tok")
	os.WriteFile(empty, []byte("\n"), 0o600)
	if _, err := runCobra(t, "mcp", "--root", root, "--http", "0.0.0.0:0", "--token-file", empty); err == nil {
		t.Fatal("empty token file accepted")
	}
}

func TestAuditCommand(t *testing.T) {
	trail := filepath.Join(t.TempDir(), "a.jsonl")
	lines := `{"time":"2026-11-29T12:00:00.000Z","session":"s1","tool":"run_command","args":{"command":"make test"},"outcome":"ok","durationMs":12.5}
{"time":"2026-11-29T12:00:01.000Z","session":"s2","tool":"write_file","args":{"path":"a","content":{"bytes":5,"sha256":"x"}},"gate":"declined","outcome":"gate-declined","durationMs":3}
`
	if err := os.WriteFile(trail, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCobra(t, "audit", trail)
	if err != nil || !strings.Contains(out, "make test") || !strings.Contains(out, "<5B>") || !strings.Contains(out, "gate-declined") {
		t.Fatalf("err %v, out:\n%s", err, out)
	}
	out, err = runCobra(t, "audit", trail, "--outcome", "gate-declined", "--json")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.Contains(out, `"session":"s2"`) {
		t.Fatalf("err %v, out:\n%s", err, out)
	}
	if _, err := runCobra(t, "audit", filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("missing file accepted")
	}
}

// TestMCPCommandStdio drives `ringfence mcp` itself over pipes with the
// SDK client: the flags, the /workspace mount path and --audit.
func TestMCPCommandStdio(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hi from the workspace\n"), 0o644)
	trail := filepath.Join(t.TempDir(), "audit.jsonl")
	ctx, cs, stop := startMCP(t, "--root", root, "--audit", trail)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "/workspace/hello.txt"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "hi from the workspace") {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	if err := stop(); err != nil {
		t.Fatalf("server: %v", err)
	}
	out, err := runCobra(t, "audit", trail, "--tool", "read_file")
	if err != nil || !strings.Contains(out, "/workspace/hello.txt") {
		t.Fatalf("audit: %v\n%s", err, out)
	}
}

// startMCP runs `ringfence mcp args…` over in-process pipes and connects
// the official SDK client to it; stop closes the client and returns the
// server's error.
func startMCP(t *testing.T, args ...string) (context.Context, *sdk.ClientSession, func() error) {
	t.Helper()
	cmd := newMCPCmd()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user policy file
	cmd.SetArgs(args)
	cmd.SetIn(inR)
	cmd.SetOut(outW)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	done := make(chan error, 1)
	go func() { done <- cmd.Execute(); outW.Close() }()
	c := sdk.NewClient(&sdk.Implementation{Name: "cli-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	cs, err := c.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v (server: %v)", err, drain(done))
	}
	return ctx, cs, func() error {
		cs.Close()
		inW.Close()
		return <-done
	}
}

func drain(done chan error) error {
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		return nil
	}
}

// An audit trail kept inside the workspace cannot be rewritten by what it
// records: neither the file tools nor a confined command may write it.
func TestMCPAuditTrailInsideWorkspaceIsProtected(t *testing.T) {
	needBackend(t, "auto")
	root := workspace(t)
	trail := filepath.Join(root, "audit.jsonl")
	ctx, cs, stop := startMCP(t, "--root", root, "--audit", trail)
	w, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "audit.jsonl", "content": "forged\n"}})
	if err != nil || !w.IsError {
		t.Fatalf("write_file over the trail: %v %+v", err, w)
	}
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo forged > audit.jsonl; echo forged >> audit.jsonl"}})
	if err != nil {
		t.Fatal(err)
	}
	_ = stop()
	b, _ := os.ReadFile(trail)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, `{"time":`) {
			t.Fatalf("the trail holds a line it did not write (run_command: %v): %q", r.IsError, l)
		}
	}
	if len(lines) != 2 || !r.IsError {
		t.Fatalf("want the two refused calls recorded, got %d lines:\n%s", len(lines), b)
	}
}
