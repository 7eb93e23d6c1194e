//go:build linux

package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// With the process tools on, a plain run_command runs in the session: what
// call 1 leaves in /tmp and in the background, call 2 finds; its stdin is
// what was given, then end of file (as one-shot); its time limit holds.
func TestRunCommandRunsInTheSession(t *testing.T) {
	f := processFixture(t, Options{})
	r := f.call("run_command", obj_{"command": "echo first > /tmp/carried; sleep 100 & echo started"})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	if !ranIn(r, ringfence.RanInSession) || !strings.Contains(r.Text, "started") || r.Outcome.Kind != outcome.OK {
		t.Fatalf("call 1: %s", r.Text)
	}
	r = f.call("run_command", obj_{"command": "cat /tmp/carried; pgrep -x sleep >/dev/null && echo sleeper-alive"})
	if !ranIn(r, ringfence.RanInSession) || !strings.Contains(r.Text, "first") || !strings.Contains(r.Text, "sleeper-alive") {
		t.Fatalf("call 2 does not see call 1's /tmp or background process: %s", r.Text)
	}
	r = f.call("run_command", obj_{"argv": []string{"cat"}, "stdin": "typed"})
	if !strings.Contains(r.Text, "typed") || r.Outcome.Kind != outcome.OK {
		t.Fatalf("stdin: %s", r.Text)
	}
	r = f.call("run_command", obj_{"argv": []string{"cat"}}) // no stdin: end of file at once, never a hang
	if r.Outcome.Kind != outcome.OK {
		t.Fatalf("cat without stdin: %s", r.Text)
	}
	t0 := time.Now()
	r = f.call("run_command", obj_{"argv": []string{"sleep", "30"}, "timeout_seconds": 1})
	d := r.Data.(*ringfence.ExecResult)
	if d.Kind != ringfence.KindTimedOut || time.Since(t0) > 10*time.Second {
		t.Fatalf("timeout in the session: %s after %v: %s", d.Kind, time.Since(t0), r.Text)
	}
	// A foreground command is not a listed process.
	if r := f.call("list_processes", obj_{}); !strings.Contains(r.Text, "no processes") {
		t.Fatalf("foreground commands listed: %s", r.Text)
	}
}

// A command whose approval widens the policy runs one-shot, and says so:
// it does not see the session's /tmp (it is not in the session), and the
// session's next command still runs in the session.
func TestRunCommandWidenedRunsOneShot(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f := processFixture(t, Options{Gate: g, Classifier: askClassifier(t), GateTimeout: time.Second, SessionID: "s1"})
	r := f.call("run_command", obj_{"command": "echo here > /tmp/mark"})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	if !ranIn(r, ringfence.RanInSession) {
		t.Fatalf("setup: %s", r.Text)
	}
	r = f.call("run_command", obj_{"command": "cat /tmp/mark || echo no-mark; false && curl -s https://example.com/; true"})
	if g.count() != 1 || !ranIn(r, ringfence.RanOneShot) || !strings.Contains(r.Text, "no-mark") ||
		!strings.Contains(r.Text, "sandbox of its own") {
		t.Fatalf("widened: asked %d: %s", g.count(), r.Text)
	}
	if d := r.Data.(*ringfence.ExecResult); !strings.Contains(d.Session.Why, "network") {
		t.Fatalf("why: %q", d.Session.Why)
	}
	r = f.call("run_command", obj_{"command": "cat /tmp/mark"})
	if !ranIn(r, ringfence.RanInSession) || !strings.Contains(r.Text, "here") {
		t.Fatalf("after: %s", r.Text)
	}
}

// A terminal process's size changes through write_stdin, and the program
// sees it.
func TestRunCommandTerminalResize(t *testing.T) {
	f := processFixture(t, Options{})
	r := f.call("run_command", obj_{"command": "stty size; read x; stty size; read y", "tty": true, "rows": 30, "cols": 100, "yield_ms": 500})
	if r.Outcome.Kind == outcome.Unavailable {
		testenv.Need(t, "linux-backend sessions", ErrText(r))
	}
	id := processID(t, r)
	if !strings.Contains(r.Text, "30 100") {
		t.Fatalf("first size: %s", r.Text)
	}
	r = f.call("write_stdin", obj_{"process_id": id, "rows": 40, "cols": 132, "chars": "\n", "yield_ms": 1000})
	if !strings.Contains(r.Text, "40 132") {
		t.Fatalf("resized: %s", r.Text)
	}
	r = f.call("run_command", obj_{"argv": []string{"sleep", "5"}, "yield_ms": 0})
	plain := processID(t, r)
	if r := f.call("write_stdin", obj_{"process_id": plain, "rows": 10, "cols": 10}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("resize without a terminal: %s", r.Text)
	}
	if r := f.call("write_stdin", obj_{"process_id": id, "rows": 10}); r.Outcome.Kind != outcome.InvalidArguments {
		t.Fatalf("rows without cols: %s", r.Text)
	}
}

// The session arguments are checked, and absent without the process tools.
func TestRunCommandSessionArgs(t *testing.T) {
	f := processFixture(t, Options{})
	for _, args := range []obj_{
		{"argv": []string{"true"}, "tty": true},
		{"argv": []string{"true"}, "rows": 5, "cols": 5, "background": true},
	} {
		if r := f.call("run_command", args); r.Outcome.Kind != outcome.InvalidArguments {
			t.Errorf("%v: %s", args, r.Text)
		}
	}
	plain := newFixture(t, setup{mode: policy.WorkspaceWrite, backend: "linux"})
	for _, k := range []string{"background", "yield_ms", "tty"} {
		v := any(true)
		if k == "yield_ms" {
			v = 10
		}
		if r := plain.call("run_command", obj_{"argv": []string{"true"}, k: v}); r.Outcome.Kind != outcome.InvalidArguments {
			t.Errorf("%s without the process tools: %s", k, r.Text)
		}
	}
	if r := plain.call("run_command", obj_{"argv": []string{"true"}}); r.Data.(*ringfence.ExecResult).Session != nil {
		t.Errorf("without the process tools a result names no session: %s", r.Text)
	}
}

// Under a CPU-time limit, which a session does not enforce, run_command
// runs one-shot (which does) and says why; background is refused.
// Control: the same Set without the limit runs in the session.
func TestRunCommandCPULimitRunsOneShot(t *testing.T) {
	for _, cpu := range []time.Duration{0, 5 * time.Second} {
		root := t.TempDir()
		d := policy.AgentDefaults()
		d.Limits.CPUTime = cpu
		sb, err := ringfence.New(ringfence.Config{Root: root, Backend: "linux", Defaults: d})
		if err != nil {
			t.Fatal(err)
		}
		set := New(sb, Options{Processes: true})
		f := &fixture{t: t, root: root, sb: sb, set: set}
		r := f.call("run_command", obj_{"argv": []string{"true"}})
		bg := f.call("run_command", obj_{"argv": []string{"sleep", "5"}, "background": true, "yield_ms": 0})
		set.Close()
		sb.Close()
		switch {
		case cpu == 0 && (!ranIn(r, ringfence.RanInSession) || !ranIn(bg, ringfence.RanInSession)):
			t.Fatalf("control: no limit, not in the session: %s / %s", r.Text, bg.Text)
		case cpu > 0 && (!ranIn(r, ringfence.RanOneShot) || !strings.Contains(r.Text, "CPU-time")):
			t.Fatalf("under a CPU limit: %s", r.Text)
		case cpu > 0 && bg.Outcome.Kind != outcome.Unavailable:
			t.Fatalf("background under a CPU limit: %s", bg.Text)
		}
	}
}
