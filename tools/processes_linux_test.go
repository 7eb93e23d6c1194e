//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// processFixture is a Set with the process tools over the linux backend.
func processFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	o.Processes = true
	f := newFixture(t, setup{mode: policy.WorkspaceWrite, backend: "linux", opts: o})
	t.Cleanup(func() { f.set.Close() })
	return f
}

func processID(t *testing.T, r Result) int64 {
	t.Helper()
	v, ok := r.Data.(*ringfence.ExecResult)
	if !ok || v.Session == nil || !v.Session.Running || v.Session.In != ringfence.RanInSession || v.Session.ProcessID == 0 {
		t.Fatalf("not a running process: %T %s", r.Data, r.Text)
	}
	return int64(v.Session.ProcessID)
}

func TestProcessToolsBackgroundAndStdin(t *testing.T) {
	f := processFixture(t, Options{})
	r := f.call("run_command", obj_{"command": `echo kept > /tmp/n; read a; echo "got $a"; read b; echo "then $b"`, "yield_ms": 200})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	id := processID(t, r)
	r = f.call("write_stdin", obj_{"process_id": id, "chars": "one\n", "yield_ms": 300})
	if !strings.Contains(r.Text, "got one") || strings.Contains(r.Text, "then") {
		t.Fatalf("after one line: %s", r.Text)
	}
	r = f.call("write_stdin", obj_{"process_id": id, "chars": "two\n", "yield_ms": 5000})
	if !strings.Contains(r.Text, "ended") || !strings.Contains(r.Text, "then two") || strings.Contains(r.Text, "got one") {
		t.Fatalf("the end shows only what was not shown yet: %s", r.Text)
	}
	// The next command sees the same /tmp.
	r = f.call("run_command", obj_{"argv": []string{"cat", "/tmp/n"}, "yield_ms": 5000})
	if !strings.Contains(r.Text, "kept") {
		t.Fatalf("/tmp not kept: %s", r.Text)
	}
	r = f.call("list_processes", obj_{})
	if !strings.Contains(r.Text, "1\texited 0") || !strings.Contains(r.Text, "2\texited 0") {
		t.Fatalf("list: %s", r.Text)
	}
}

func TestProcessToolsTerminal(t *testing.T) {
	f := processFixture(t, Options{})
	r := f.call("run_command", obj_{"command": "stty size; test -t 0 && test -t 1 && echo on-a-tty; read x; echo got-$x", "tty": true, "rows": 30, "cols": 100, "yield_ms": 500})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	id := processID(t, r)
	if !strings.Contains(r.Text, "30 100") || !strings.Contains(r.Text, "on-a-tty") {
		t.Fatalf("terminal: %s", r.Text)
	}
	r = f.call("write_stdin", obj_{"process_id": id, "chars": "abc\n", "yield_ms": 5000})
	if !strings.Contains(r.Text, "got-abc") || !strings.Contains(r.Text, "ended") {
		t.Fatalf("after input: %s", r.Text)
	}
}

func TestProcessToolsKillAndLimits(t *testing.T) {
	f := processFixture(t, Options{})
	r := f.call("run_command", obj_{"argv": []string{"sleep", "100"}, "yield_ms": 0})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	id := processID(t, r)
	r = f.call("kill_process", obj_{"process_id": id, "signal": "kill"})
	if !strings.Contains(r.Text, "ended") || !strings.Contains(r.Text, "SIGKILL") {
		t.Fatalf("kill: %s", r.Text)
	}
	if r := f.call("kill_process", obj_{"process_id": id, "signal": "STOPALL"}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("bad signal: %s", r.Outcome.Kind)
	}
	if r := f.call("write_stdin", obj_{"process_id": 99}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("unknown id: %s", r.Outcome.Kind)
	}
	for i := 0; i < MaxSessionProcesses; i++ {
		r := f.call("run_command", obj_{"argv": []string{"sleep", "100"}, "yield_ms": 0})
		processID(t, r)
	}
	r = f.call("run_command", obj_{"argv": []string{"true"}, "yield_ms": 0})
	if r.Outcome.Kind != outcome.OverBudget || !strings.Contains(r.Text, "16") {
		t.Fatalf("past the limit: %s %s", r.Outcome.Kind, r.Text)
	}
	// A foreground command still runs, one-shot, and says why.
	r = f.call("run_command", obj_{"argv": []string{"echo", "still"}})
	if !ranIn(r, ringfence.RanOneShot) || !strings.Contains(r.Text, "still") || !strings.Contains(r.Text, "as many processes") {
		t.Fatalf("foreground past the limit: %s", r.Text)
	}
}

// Two Sets (two MCP sessions) have separate sessions: one cannot see,
// write to or signal the other's processes, nor reach its loopback.
func TestProcessToolsSessionsAreIsolated(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	// python3 is allowed here (the built-in table asks about it).
	c, err := execpolicy.Config{Rules: []execpolicy.Rule{
		{Prefix: []string{"python3"}, Decision: "allow", Reason: "test rule", Match: [][]string{{"python3", "-c", "x"}}},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	sb, err := ringfence.New(ringfence.Config{Root: root, Backend: "linux", Defaults: policy.Defaults{
		Mode: policy.WorkspaceWrite, Baseline: policy.Read, Network: policy.Network{Mode: policy.NetLoopback}}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	f := &fixture{t: t, root: root, sb: sb, set: New(sb, Options{Processes: true, SessionID: "a", Classifier: c})}
	defer f.set.Close()
	other := New(sb, Options{Processes: true, SessionID: "b", Classifier: c})
	defer other.Close()
	r := f.call("run_command", obj_{"command": "python3 -m http.server 18766 --bind 127.0.0.1", "background": true, "yield_ms": 500})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	id := processID(t, r)
	probe := `python3 -c "
import time, urllib.request
for i in range(60):
    try:
        print(urllib.request.urlopen('http://127.0.0.1:18766/', timeout=1).status); break
    except OSError:
        time.sleep(0.05)
else:
    print('unreachable')
"`
	r = f.call("run_command", obj_{"command": probe, "yield_ms": 10000})
	if !strings.Contains(r.Text, "200") {
		t.Fatalf("own server: %s", r.Text)
	}
	call := func(name string, args obj_) Result {
		b, _ := json.Marshal(args)
		return other.Call(context.Background(), name, b)
	}
	if r := call("list_processes", obj_{}); !strings.Contains(r.Text, "no processes") {
		t.Fatalf("the other session lists: %s", r.Text)
	}
	if r := call("kill_process", obj_{"process_id": id, "signal": "KILL"}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("the other session signalled: %s", r.Text)
	}
	if r := call("write_stdin", obj_{"process_id": id, "chars": "x"}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("the other session wrote: %s", r.Text)
	}
	r = call("run_command", obj_{"command": strings.Replace(probe, "range(60)", "range(10)", 1), "yield_ms": 10000})
	if !strings.Contains(r.Text, "unreachable") {
		t.Fatalf("the other session reached the server: %s", r.Text)
	}
	if r := f.call("list_processes", obj_{}); !strings.Contains(r.Text, "1\trunning") {
		t.Fatalf("the server did not survive the other session: %s", r.Text)
	}
}

// A command whose approval widens the policy (the network) is not run in
// the session; one whose approval widens nothing is.
func TestProcessToolsApprovalWideningIsRefused(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f := processFixture(t, Options{Gate: g, Classifier: askClassifier(t), GateTimeout: time.Second, SessionID: "s1"})
	r := f.call("run_command", obj_{"command": "false && curl -s https://example.com/; echo net", "yield_ms": 2000})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	if g.count() != 1 || r.Outcome.Kind != outcome.InvalidArguments || !strings.Contains(r.Text, "sandbox of its own") {
		t.Fatalf("widened: asked %d, %s: %s", g.count(), r.Outcome.Kind, r.Text)
	}
	if r := f.call("list_processes", obj_{}); !strings.Contains(r.Text, "no processes") {
		t.Fatalf("a refused command was started: %s", r.Text)
	}
	r = f.call("run_command", obj_{"command": "echo ask here", "yield_ms": 5000})
	if g.count() != 2 || !strings.Contains(r.Text, "ask here") {
		t.Fatalf("approved, widening nothing: asked %d: %s", g.count(), r.Text)
	}
}

// The session ends with the Set.
func TestProcessToolsCloseEndsTheSession(t *testing.T) {
	f := processFixture(t, Options{})
	r := f.call("run_command", obj_{"argv": []string{"sleep", "100"}, "yield_ms": 0})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	id := processID(t, r)
	f.set.Close()
	if r := f.call("run_command", obj_{"argv": []string{"true"}, "background": true}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("after close: %s", r.Text)
	}
	r = f.call("write_stdin", obj_{"process_id": id, "yield_ms": 2000})
	if !strings.Contains(r.Text, "ended") {
		t.Fatalf("the process outlived its session: %s", r.Text)
	}
}

// ErrText is a result's text as an error, for testenv.Need.
func ErrText(r Result) error { return &textErr{r.Text} }

type textErr struct{ s string }

func (e *textErr) Error() string { return e.s }

// BenchmarkRunCommandSessionTrue is run_command of `true` in a warm session,
// through the tool layer (decoding, classification, result, narration).
func BenchmarkRunCommandSessionTrue(b *testing.B) {
	root := b.TempDir()
	sb, err := ringfence.New(ringfence.Config{Root: root, Backend: "linux"})
	if err != nil {
		b.Skip(err)
	}
	defer sb.Close()
	set := New(sb, Options{Processes: true})
	defer set.Close()
	args := json.RawMessage(`{"argv":["true"]}`)
	if r := set.Call(context.Background(), "run_command", args); !ranIn(r, ringfence.RanInSession) {
		b.Skip(r.Text)
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		r := set.Call(context.Background(), "run_command", args)
		times = append(times, time.Since(t0))
		if r.Outcome.Kind != outcome.OK {
			b.Fatal(r.Text)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
}

// ranIn: r is run_command's result of a command that ran where.
func ranIn(r Result, where string) bool {
	d, ok := r.Data.(*ringfence.ExecResult)
	return ok && d.Session != nil && d.Session.In == where
}
