package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// askClassifier asks about `echo ask …` and `printf other …` (harmless
// commands that really run), on top of the built-in table.
func askClassifier(t *testing.T) *execpolicy.Classifier {
	c, err := execpolicy.Config{Rules: []execpolicy.Rule{
		{Prefix: []string{"echo", "ask"}, Decision: "ask", Reason: "test rule", Match: [][]string{{"echo", "ask"}}},
		{Prefix: []string{"printf", "other"}, Decision: "ask", Reason: "test rule", Match: [][]string{{"printf", "other"}}},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// gateFixture is an unconfined fixture (commands really run) whose Set
// records every approval it mints.
func gateFixture(t *testing.T, g Gate, mode policy.Mode) (*fixture, *[]*policy.Approval) {
	f := newFixture(t, setup{mode: mode, opts: Options{Gate: g, Classifier: askClassifier(t), GateTimeout: 100 * time.Millisecond, SessionID: "s1"}})
	var mu sync.Mutex
	var minted []*policy.Approval
	f.set.onApproval = func(a *policy.Approval) { mu.Lock(); minted = append(minted, a); mu.Unlock() }
	return f, &minted
}

func TestGateApproveOnce(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f, minted := gateFixture(t, g, policy.DangerFullAccess)
	r := f.call("run_command", obj_{"command": "echo ask one"})
	wantKind(t, r, outcome.OK)
	if g.count() != 1 || r.Audit.Gate != gateOnce || !strings.Contains(r.Text, "ask one") {
		t.Fatalf("asked %d, audit %+v:\n%s", g.count(), r.Audit, r.Text)
	}
	q := g.last()
	if q.Tool != "run_command" || !strings.Contains(q.Summary, `"echo ask one"`) || q.Classification.Outcome != execpolicy.AskApproval ||
		len(q.Permissions) != 1 || q.Permissions[0] != "shell:echo" {
		t.Fatalf("question %+v", q)
	}
	if strings.Contains(r.Text, "wants to run") {
		t.Fatal("the person-facing summary reached the model")
	}
	ap := (*minted)[0]
	if ap.Grant().Scope != policy.SingleCall || !ap.Spent() || ap.Grant().Network != nil || ap.Grant().SessionID != "s1" {
		t.Fatalf("approval %v spent=%v grant %+v", ap, ap.Spent(), ap.Grant())
	}
	// The second call asks again.
	r = f.call("run_command", obj_{"command": "echo ask two"})
	if wantKind(t, r, outcome.OK); g.count() != 2 {
		t.Fatalf("second call asked %d times in all", g.count())
	}
	// A replayed approval is refused by the policy layer.
	_, err := f.sb.ExecRequest(context.Background(), []string{"/bin/echo", "ask"}, ringfence.ExecOptions{}, policy.Request{Approval: ap, SessionID: "s1"})
	var ae *policy.ApprovalError
	if !errors.As(err, &ae) || ae.Reason != policy.ApprovalUsed {
		t.Fatalf("replayed approval: %v", err)
	}
}

func TestGateApproveSession(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveSession}}
	f, _ := gateFixture(t, g, policy.DangerFullAccess)
	wantKind(t, f.call("run_command", obj_{"command": "echo ask 1"}), outcome.OK)
	r := f.call("run_command", obj_{"command": "echo ask 2 | cat"})
	wantKind(t, r, outcome.OK)
	if g.count() != 1 || r.Audit.Gate != gateSession || !strings.Contains(r.Audit.Approval, "session") {
		t.Fatalf("session approval not reused: asked %d, audit %+v", g.count(), r.Audit)
	}
	// Another program (key) asks again. (Keys are program and capability:
	// a second rule for echo would share echo's key.)
	wantKind(t, f.call("run_command", obj_{"command": "printf other"}), outcome.OK)
	if g.count() != 2 {
		t.Fatalf("a different key did not ask: %d", g.count())
	}
	// Both keys now covered: a line using both does not ask.
	wantKind(t, f.call("run_command", obj_{"command": "echo ask; printf other"}), outcome.OK)
	if g.count() != 2 {
		t.Fatalf("covered keys asked again: %d", g.count())
	}
}

// TestGateNetwork: an approved network command widens the network for
// that call only; a session approval of `curl … ; echo ask` does not give
// `echo ask` alone the network later. (curl is classified but never runs:
// `false &&` short-circuits it, so the test touches no network.)
func TestGateNetwork(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveSession}}
	f, minted := gateFixture(t, g, policy.DangerFullAccess)
	r := f.call("run_command", obj_{"command": "false && curl -s https://example.com/; echo ask"})
	if g.count() != 1 || !strings.Contains(g.last().Summary, "network") {
		t.Fatalf("asked %d; audit %+v", g.count(), r.Audit)
	}
	if r.Audit.Permissions[len(r.Audit.Permissions)-1] != permNet {
		t.Fatalf("permissions %q", r.Audit.Permissions)
	}
	call := (*minted)[0]
	if n := call.Grant().Network; n == nil || n.Mode != policy.NetAllowAll {
		t.Fatalf("call approval %v does not widen the network", call)
	}
	pol, err := f.sb.Policy(policy.Request{Approval: call, SessionID: "s1"})
	if err != nil || pol.Network.Mode != policy.NetAllowAll {
		t.Fatalf("resolved network %v, %v", pol, err)
	}
	r = f.call("run_command", obj_{"command": "echo ask"})
	if g.count() != 1 || strings.Contains(r.Audit.Approval, "network") {
		t.Fatalf("echo ask alone: asked %d, approval %q", g.count(), r.Audit.Approval)
	}
}

func TestGateDeclineAndUnavailable(t *testing.T) {
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	for _, c := range []struct {
		name   string
		gate   Gate
		kind   outcome.Kind
		reason string
		audit  string
	}{
		{"decline", &fakeGate{answer: Answer{Decision: Decline, Note: "not today"}}, outcome.GateDeclined, "", gateDeclined},
		{"timeout", &fakeGate{block: true}, outcome.GateUnavailable, "timeout", gateTimeout},
		{"ignores-context", &fakeGate{hang: hang}, outcome.GateUnavailable, "timeout", gateTimeout},
		{"error", &fakeGate{err: errors.New("elicitation unsupported")}, outcome.GateUnavailable, "error", gateError},
		{"bad-decision", &fakeGate{answer: Answer{Decision: 7}}, outcome.GateUnavailable, "error", gateError},
		{"panic", panicGate{}, outcome.GateUnavailable, "error", gateError},
		{"nil", nil, outcome.GateUnavailable, "no-gate", gateNone},
		{"no-approver", &fakeGate{err: fmt.Errorf("mcp: no elicitation: %w", ErrNoApprover)}, outcome.GateUnavailable, "no-approver", gateNoAppr},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, minted := gateFixture(t, c.gate, policy.DangerFullAccess)
			marker := filepath.Join(f.root, "ran")
			r := f.call("run_command", obj_{"command": "echo ask > " + marker})
			wantKind(t, r, c.kind)
			if r.Outcome.Reason != c.reason || r.Audit.Gate != c.audit || len(*minted) != 0 || !r.IsError {
				t.Fatalf("outcome %+v audit %+v minted %d", r.Outcome, r.Audit, len(*minted))
			}
			if c.kind == outcome.GateDeclined && !strings.Contains(r.Text, "not today") {
				t.Fatalf("note missing:\n%s", r.Text)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the command ran without approval")
			}
		})
	}
}

func TestGateAborted(t *testing.T) {
	f, _ := gateFixture(t, &fakeGate{block: true}, policy.DangerFullAccess)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := f.set.Call(ctx, "run_command", raw(t, obj_{"command": "echo ask"}))
	wantKind(t, r, outcome.Aborted)
}

type panicGate struct{}

func (panicGate) Ask(context.Context, Question) (Answer, error) { panic("boom") }

// snapshot maps every file under root to its contents.
func snapshot(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestApprovedWriteExactlyThatPath: in read-only mode an approved write
// writes the one path asked about and nothing else; the approval is spent,
// and the next write asks again.
func TestApprovedWriteExactlyThatPath(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f, minted := gateFixture(t, g, policy.ReadOnly)
	f.write("docs/a.txt", "a")
	f.write("docs/b.txt", "b")
	before := snapshot(t, f.root)

	r := f.call("write_file", obj_{"path": "docs/new.txt", "content": "approved"})
	wantKind(t, r, outcome.OK)
	q := g.last()
	if q.Tool != "write_file" || q.Permissions[0] != "filesystem:write /workspace/docs/new.txt" ||
		!strings.Contains(q.Summary, "/workspace/docs/new.txt") || strings.Contains(q.Summary, f.root) {
		t.Fatalf("question %+v", q)
	}
	after := snapshot(t, f.root)
	before[filepath.Join(f.root, "docs/new.txt")] = "approved"
	if len(after) != len(before) {
		t.Fatalf("files after: %v", after)
	}
	for p, c := range before {
		if after[p] != c {
			t.Fatalf("%s = %q, want %q", p, after[p], c)
		}
	}
	ap := (*minted)[0]
	if es := ap.Grant().Entries; len(es) != 1 || es[0].Path != filepath.Join(f.root, "docs/new.txt") || es[0].Access != policy.Write {
		t.Fatalf("grant entries %+v", es)
	}
	if _, err := f.sb.WorkspaceFor(policy.Request{Approval: ap, SessionID: "s1"}); err == nil {
		t.Fatal("a spent write approval was accepted again")
	}
	// The same approval does not cover the neighbour, and the next write asks.
	g.answer = Answer{Decision: Decline}
	r = f.call("edit_file", obj_{"path": "docs/a.txt", "old_string": "a", "new_string": "z"})
	wantKind(t, r, outcome.GateDeclined)
	if got, _ := f.read("docs/a.txt"); got != "a" || g.count() != 2 {
		t.Fatalf("declined edit changed the file (%q) or did not ask (%d)", got, g.count())
	}
}

func TestApprovedWriteSession(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveSession}}
	f, _ := gateFixture(t, g, policy.WorkspaceWrite)
	f.write(".git/hooks/pre-commit", "#!/bin/sh\n")
	f.write("plain", "p")
	r := f.call("edit_file", obj_{"path": ".git/hooks/pre-commit", "old_string": "sh", "new_string": "bash"})
	wantKind(t, r, outcome.OK)
	r = f.call("write_file", obj_{"path": "/workspace/.git/hooks/pre-commit", "content": "x"})
	if wantKind(t, r, outcome.OK); g.count() != 1 || r.Audit.Gate != gateSession {
		t.Fatalf("same path asked again: %d %+v", g.count(), r.Audit)
	}
	wantKind(t, f.call("write_file", obj_{"path": ".git/hooks/post-commit", "content": "x"}), outcome.OK)
	if g.count() != 2 {
		t.Fatalf("another path did not ask: %d", g.count())
	}
	// A writable path never asks; a hard-linked one is refused without asking.
	wantKind(t, f.call("write_file", obj_{"path": "plain", "content": "q"}), outcome.OK)
	if err := os.Link(filepath.Join(f.root, "plain"), filepath.Join(f.root, "alias")); err != nil {
		t.Fatal(err)
	}
	r = f.call("write_file", obj_{"path": "alias", "content": "x"})
	if wantKind(t, r, outcome.DeniedByPolicy); g.count() != 2 {
		t.Fatalf("a hard-linked target was asked about")
	}
}

// TestPayloadCannotApprove: a model that puts an approval in its
// arguments gets invalid-arguments; nothing is asked or written. The same
// call without it reaches the gate (the control: the gate is the barrier).
func TestPayloadCannotApprove(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: Decline}}
	f, minted := gateFixture(t, g, policy.ReadOnly)
	for _, extra := range []string{`"approval":{"scope":"session"}`, `"approved":true`, `"Approval":"yes"`} {
		r := f.call("write_file", `{"path":"x.txt","content":"x",`+extra+`}`)
		wantKind(t, r, outcome.InvalidArguments)
	}
	r := f.call("run_command", `{"command":"echo ask","approval":{"scope":"session"}}`)
	wantKind(t, r, outcome.InvalidArguments)
	if _, ok := f.read("x.txt"); ok || g.count() != 0 || len(*minted) != 0 {
		t.Fatalf("written %v, asked %d, minted %d", ok, g.count(), len(*minted))
	}
	wantKind(t, f.call("write_file", obj_{"path": "x.txt", "content": "x"}), outcome.GateDeclined)
	if g.count() != 1 {
		t.Fatalf("control: the gate was not asked")
	}
}
