package mcp

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/tools"
)

// Over MCP, each session's processes are its own: another session lists
// none of them and cannot write to or signal them by id; a pruned
// session's processes end with it.
func TestProcessToolsPerMCPSession(t *testing.T) {
	e := newEnv(t, tools.Options{Processes: true})
	marker := "1" + strconv.FormatInt(time.Now().UnixNano()%1e7, 10) + "7"
	e.needBackend()
	if e.sb.Backend() != "linux" {
		t.Skip("sessions need the linux backend; this host picked " + e.sb.Backend())
	}
	a, b := e.connect(nil), e.connect(nil)
	r, st := call(t, a, "run_command", map[string]any{"argv": []string{"sleep", "100"}, "yield_ms": 0})
	wantKind(t, r, st, "ok", false)
	if !strings.Contains(text(r), "process_id 1 is still running") {
		t.Fatalf("start: %s", text(r))
	}
	r, _ = call(t, b, "list_processes", map[string]any{})
	if !strings.Contains(text(r), "no processes") {
		t.Fatalf("session b lists a's processes: %s", text(r))
	}
	r, st = call(t, b, "kill_process", map[string]any{"process_id": 1, "signal": "KILL"})
	wantKind(t, r, st, "invalid-arguments", true)
	r, st = call(t, b, "write_stdin", map[string]any{"process_id": 1, "chars": "x"})
	wantKind(t, r, st, "invalid-arguments", true)
	r, _ = call(t, a, "list_processes", map[string]any{})
	if !strings.Contains(text(r), "1\trunning") {
		t.Fatalf("a's process did not survive b's attempts: %s", text(r))
	}
	// b's own process 1 is another process.
	r, _ = call(t, b, "run_command", map[string]any{"argv": []string{"echo", "b-one"}, "yield_ms": 5000})
	if !strings.Contains(text(r), "process_id 1 ended") || !strings.Contains(text(r), "b-one") {
		t.Fatalf("b's first process: %s", text(r))
	}
	// a's session ends when its client disconnects: its processes end
	// too, as seen from the host, with no other client connecting.
	r, _ = call(t, a, "run_command", map[string]any{"argv": []string{"sleep", marker}, "yield_ms": 0})
	if !strings.Contains(text(r), "still running") {
		t.Fatalf("marker: %s", text(r))
	}
	if n := countProcs(marker); n != 1 {
		t.Fatalf("%d processes with the marker, want 1", n)
	}
	a.Close()
	deadline := time.Now().Add(10 * time.Second)
	for countProcs(marker) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("a's process outlived its MCP session")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countProcs counts the processes whose command line holds marker.
func countProcs(marker string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), marker) {
			n++
		}
	}
	return n
}

// Over MCP, run_command runs in the MCP session's own sandbox session:
// what one call leaves in /tmp the next call of the same session finds,
// and another session's calls do not.
func TestRunCommandSessionPerMCPSession(t *testing.T) {
	e := newEnv(t, tools.Options{Processes: true})
	e.needBackend()
	if e.sb.Backend() != "linux" {
		t.Skip("sessions need the linux backend; this host picked " + e.sb.Backend())
	}
	a, b := e.connect(nil), e.connect(nil)
	r, st := call(t, a, "run_command", map[string]any{"command": "echo only-a > /tmp/mine"})
	wantKind(t, r, st, "ok", false)
	r, _ = call(t, a, "run_command", map[string]any{"command": "cat /tmp/mine"})
	if !strings.Contains(text(r), "only-a") {
		t.Fatalf("a's second call: %s", text(r))
	}
	r, _ = call(t, b, "run_command", map[string]any{"command": "cat /tmp/mine || echo absent"})
	if strings.Contains(text(r), "only-a") || !strings.Contains(text(r), "absent") {
		t.Fatalf("b sees a's /tmp: %s", text(r))
	}
}
