package mcp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/tools"
)

// pidsRunning lists the processes whose command line is argv exactly.
func pidsRunning(argv ...string) []int {
	want := []byte(fmtArgv(argv))
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(b, want) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

func fmtArgv(argv []string) string {
	var b bytes.Buffer
	for _, a := range argv {
		b.WriteString(a)
		b.WriteByte(0)
	}
	return b.String()
}

// marker is a sleep no other process runs.
func marker() []string {
	return []string{"sleep", fmt.Sprintf("%d.%06d", 1000+os.Getpid()%1000, time.Now().UnixNano()%1000000)}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runAndDrop starts run_command with the marker, waits until the sleep
// runs (proving the check can see it), drops the client by drop, and
// requires that no process with the marker survives.
func runAndDrop(t *testing.T, cs *sdk.ClientSession, drop func()) {
	t.Helper()
	m := marker()
	// The client's own call never returns once its connection is gone;
	// its context ends with the test.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": m, "timeout_seconds": 600}})
	}()
	waitFor(t, "the command to start", func() bool { return len(pidsRunning(m...)) > 0 })
	pids := pidsRunning(m...)
	drop()
	waitFor(t, fmt.Sprintf("pids %v to go", pids), func() bool { return len(pidsRunning(m...)) == 0 })
}

// droppable is a client transport whose connection the test can cut, as a
// crashed client or a broken pipe would (ClientSession.Close is graceful:
// it waits for calls in flight).
type droppable struct {
	sdk.Transport
	mu   sync.Mutex
	conn sdk.Connection
}

func (d *droppable) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := d.Transport.Connect(ctx)
	d.mu.Lock()
	d.conn = c
	d.mu.Unlock()
	return c, err
}

func (d *droppable) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conn.Close()
}

func TestDisconnectKillsCommandInMemory(t *testing.T) {
	e := newEnv(t, tools.Options{})
	e.needBackend()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := e.srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	d := &droppable{Transport: ct}
	cs := clientOver(t, d, nil)
	runAndDrop(t, cs, d.drop)
}

func TestCancelKillsCommand(t *testing.T) {
	e := newEnv(t, tools.Options{})
	e.needBackend()
	cs := e.connect(nil)
	m := marker()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_command", Arguments: map[string]any{"argv": m}})
	}()
	waitFor(t, "the command to start", func() bool { return len(pidsRunning(m...)) > 0 })
	cancel() // the client sends notifications/cancelled
	waitFor(t, "the command to go", func() bool { return len(pidsRunning(m...)) == 0 })
	<-done
	// The session still serves.
	r, st := call(t, cs, "list_files", map[string]any{"path": "."})
	wantKind(t, r, st, "ok", false)
}

func TestDisconnectKillsCommandStdio(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		testenv.Need(t, "/proc", err)
	}
	cmd, _, _ := serverCmd(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	cs := clientOver(t, &sdk.IOTransport{Reader: stdout, Writer: stdin}, nil)
	// The client goes away: its end of both pipes closes, nothing is
	// signalled. The server must notice and kill the command itself.
	runAndDrop(t, cs, func() { stdin.Close(); stdout.Close() })
	select {
	case <-exited:
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit after its client left")
	}
}

// TestDisconnectKillsCommandHTTP: an HTTP client that goes away — its
// connections dropped (a crash), or its session ended with DELETE — takes
// its running command with it.
func TestDisconnectKillsCommandHTTP(t *testing.T) {
	for _, how := range []string{"drop", "delete"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t, tools.Options{})
			e.needBackend()
			ts := httptest.NewServer(e.handler(agentCred))
			t.Cleanup(ts.Close)
			cs, err := httpClient(t, ts.URL, agentCred.Token, nil)
			if err != nil {
				t.Fatal(err)
			}
			runAndDrop(t, cs, func() {
				if how == "drop" {
					ts.CloseClientConnections()
					return
				}
				req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
				req.Header.Set("Mcp-Session-Id", cs.ID())
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				req.Header.Set("Authorization", "Bearer "+agentCred.Token)
				go func() {
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				}()
			})
		})
	}
}
