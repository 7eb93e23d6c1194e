package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
)

// serverCmd is this test binary as a stdio MCP server over a fresh root.
func serverCmd(t *testing.T) (*exec.Cmd, string, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	trail := filepath.Join(t.TempDir(), "audit.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+root, serveEnv+"_AUDIT="+trail)
	cmd.Stderr = os.Stderr
	return cmd, root, trail
}

func TestStdioEndToEnd(t *testing.T) {
	cmd, root, trail := serverCmd(t)
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := clientOver(t, &sdk.CommandTransport{Command: cmd}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) < 8 {
		t.Fatalf("ListTools: %v, %d tools", err, len(res.Tools))
	}
	r, st := call(t, cs, "read_file", map[string]any{"path": "a.txt"})
	wantKind(t, r, st, "ok", false)
	if !strings.Contains(text(r), "alpha") {
		t.Fatalf("read_file: %s", text(r))
	}
	r, st = call(t, cs, "write_file", map[string]any{"path": ".git/hooks/x", "content": "x"})
	wantKind(t, r, st, "gate-unavailable", true) // this client cannot be asked
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	f, err := os.Open(trail)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := audit.Read(f, audit.Filter{})
	if err != nil || len(recs) != 2 || recs[0].Tool != "read_file" || recs[1].Gate != "no-approver" || recs[0].Session != recs[1].Session || !strings.HasPrefix(recs[0].Session, "s-") {
		t.Fatalf("trail: %v %+v", err, recs)
	}
}

// rawServer is the stdio server with the test holding both pipes.
type rawServer struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRaw(t *testing.T) *rawServer {
	cmd, _, _ := serverCmd(t)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	return &rawServer{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (r *rawServer) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

type wireReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

func (r *rawServer) recv() wireReply {
	r.t.Helper()
	done := make(chan wireReply, 1)
	go func() {
		line, err := r.out.ReadBytes('\n')
		var w wireReply
		if err != nil || json.Unmarshal(line, &w) != nil {
			w.ID = json.RawMessage("\"<unreadable>\"")
		}
		done <- w
	}()
	select {
	case w := <-done:
		return w
	case <-time.After(30 * time.Second):
		r.t.Fatal("no reply from the server")
	}
	return wireReply{}
}

func TestStdioMalformedInput(t *testing.T) {
	s := startRaw(t)
	for _, c := range []struct {
		line string
		id   string
		code int64
	}{
		{"this is not json", "null", -32700},
		{`{"jsonrpc":"2.0","id":7,"method":5}`, "7", -32600},
		{`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, "null", -32600},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/list"`, "null", -32700},
		{`{"jsonrpc":"2.0","id":"x","method":"` + strings.Repeat("a", DefaultMaxLine+10) + `"}`, "null", -32600},
		{"\x00\xff\xfe", "null", -32700},
	} {
		s.send(c.line)
		w := s.recv()
		if w.Error == nil || w.Error.Code != c.code || string(w.ID) != c.id {
			t.Fatalf("%.40q: reply id %s error %+v, want %s %d", c.line, w.ID, w.Error, c.id, c.code)
		}
	}
	// The server still serves: a real handshake and a call.
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if w := s.recv(); w.Error != nil || string(w.ID) != "1" || !strings.Contains(string(w.Result), "ringfence") {
		t.Fatalf("initialize: %s %+v", w.Result, w.Error)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send("garbage in the middle")
	if w := s.recv(); w.Error == nil || w.Error.Code != -32700 {
		t.Fatalf("garbage after init: %+v", w)
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_files","arguments":{"path":"."}}}`)
	if w := s.recv(); w.Error != nil || string(w.ID) != "2" || !strings.Contains(string(w.Result), `"kind":"ok"`) {
		t.Fatalf("tools/call: %s %+v", w.Result, w.Error)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"no/such/method"}`)
	if w := s.recv(); w.Error == nil || string(w.ID) != "3" {
		t.Fatalf("unknown method: %+v", w)
	}
	// EOF ends the server cleanly.
	s.in.Close()
	errc := make(chan error, 1)
	go func() { errc <- s.cmd.Wait() }()
	select {
	case err := <-errc:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("server exited %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not exit on EOF")
	}
}
