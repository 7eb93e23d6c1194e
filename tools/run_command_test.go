package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// Until a backend is selected, commands that must really run use
// danger-full-access (unconfined, knowingly); TestRunCommandConfined runs
// under the real backend once there is one.
func dangerFixture(t *testing.T, opts Options) *fixture {
	return newFixture(t, setup{mode: policy.DangerFullAccess, opts: opts})
}

func TestRunCommand(t *testing.T) {
	f := dangerFixture(t, Options{})
	f.write("sub/file.txt", "hello\n")

	r := f.call("run_command", obj_{"command": "cat sub/file.txt; echo err >&2"})
	wantKind(t, r, outcome.OK)
	if !strings.HasPrefix(r.Text, "exit code 0") || !strings.Contains(r.Text, "--- stdout (6 bytes) ---\nhello") ||
		!strings.Contains(r.Text, "--- stderr (4 bytes) ---\nerr") || r.IsError {
		t.Fatalf("text:\n%s", r.Text)
	}
	if d := r.Data.(*ringfence.ExecResult); d.Stdout != "hello\n" || *d.ExitCode != 0 {
		t.Fatalf("data %+v", d)
	}
	if r.Audit.Classified != "allow" || r.Audit.Backend != "none" || r.Audit.Enforcement == nil || r.Audit.Gate != "" {
		t.Fatalf("audit %+v", r.Audit)
	}

	r = f.call("run_command", obj_{"argv": []string{"/bin/cat"}, "stdin": "from stdin", "cwd": "/workspace/sub"})
	if wantKind(t, r, outcome.OK); !strings.Contains(r.Text, "from stdin") {
		t.Fatalf("stdin:\n%s", r.Text)
	}
	r = f.call("run_command", obj_{"command": "ls", "cwd": "sub"})
	if wantKind(t, r, outcome.OK); !strings.Contains(r.Text, "file.txt") {
		t.Fatalf("cwd:\n%s", r.Text)
	}

	r = f.call("run_command", obj_{"command": "echo out; exit 3"})
	wantKind(t, r, outcome.NonzeroExit)
	if !strings.HasPrefix(r.Text, "exit code 3") || !strings.Contains(r.Text, "exited with code 3") || !r.IsError {
		t.Fatalf("nonzero:\n%s", r.Text)
	}

	r = f.call("run_command", obj_{"command": "sleep 30", "timeout_seconds": 1})
	wantKind(t, r, outcome.TimedOut)

	r = f.call("run_command", obj_{"command": "ls", "cwd": "nope"})
	wantKind(t, r, outcome.NotFound)
	r = f.call("run_command", obj_{"command": "ls", "cwd": "sub/file.txt"})
	wantKind(t, r, outcome.NotADirectory)
}

// TestRunCommandHostRootRewritten: pwd prints the host root (the linux
// backend keeps host paths, and so does an unconfined run); the model sees
// /workspace, in the text and in the structured result.
func TestRunCommandHostRootRewritten(t *testing.T) {
	f := dangerFixture(t, Options{})
	r := f.call("run_command", obj_{"command": "pwd; pwd >&2; echo " + f.root + "/sub"})
	wantKind(t, r, outcome.OK)
	d := r.Data.(*ringfence.ExecResult)
	if strings.Contains(r.Text, f.root) || strings.Contains(d.Stdout, f.root) || strings.Contains(d.Stderr, f.root) {
		t.Fatalf("host root %s leaks:\n%s", f.root, r.Text)
	}
	if d.Stdout != "/workspace\n/workspace/sub\n" || d.Stderr != "/workspace\n" {
		t.Fatalf("stdout %q stderr %q", d.Stdout, d.Stderr)
	}
	// Control: the raw output really did hold the host root.
	raw, err := f.sb.Exec(context.Background(), []string{"/bin/pwd"}, ringfence.ExecOptions{})
	if err != nil || !strings.Contains(raw.Stdout, f.root) {
		t.Fatalf("control: raw pwd = %q, %v", raw.Stdout, err)
	}
}

func TestRunCommandOutputCut(t *testing.T) {
	f := dangerFixture(t, Options{MaxOutputBytes: 100})
	r := f.call("run_command", obj_{"command": "seq 1 1000"})
	wantKind(t, r, outcome.OK)
	if !strings.Contains(r.Text, "bytes omitted") || !strings.Contains(r.Text, "\n1\n2\n") || !strings.Contains(r.Text, "1000") ||
		!strings.Contains(r.Text, "(3893 bytes,") {
		t.Fatalf("cut output:\n%s", r.Text)
	}
	if len(r.Text) > 600 {
		t.Fatalf("text not bounded: %d bytes", len(r.Text))
	}
}

func TestRunCommandDeniedNeverAsks(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveOnce}}
	f := dangerFixture(t, Options{Gate: g})
	marker := filepath.Join(f.root, "ran")
	r := f.call("run_command", obj_{"command": "touch " + marker + " && sudo true"})
	wantKind(t, r, outcome.DeniedByPolicy)
	if r.Outcome.Axis != outcome.AxisExec || r.Outcome.Program != "sudo" || g.count() != 0 {
		t.Fatalf("outcome %+v, asked %d", r.Outcome, g.count())
	}
	if !strings.Contains(r.Text, `"sudo"`) || !strings.Contains(r.Text, "not run") || strings.Contains(r.Text, f.root) {
		t.Fatalf("text:\n%s", r.Text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a denied command line ran")
	}
	// Control: the same line without the denied part runs and leaves it.
	wantKind(t, f.call("run_command", obj_{"command": "touch " + marker}), outcome.OK)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("control: %v", err)
	}
}

// TestExecErrors: a run that never started maps to its outcome; in
// particular no backend is unavailable (nothing ran unconfined).
func TestExecErrors(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	for _, c := range []struct {
		err  error
		kind outcome.Kind
	}{
		{&confine.UnavailableError{Tried: []string{"linux"}, Reasons: []string{"no userns"}}, outcome.Unavailable},
		{&policy.ApprovalError{Reason: policy.ApprovalUsed}, outcome.GateUnavailable},
		{&pathrule.Error{Reason: pathrule.Escape}, outcome.PathRejected},
		{&policy.InvalidError{Field: "root"}, outcome.Unavailable},
		{errors.New("other"), outcome.RunnerFailure},
	} {
		if o := f.set.execError(c.err, "sub"); o.Kind != c.kind {
			t.Errorf("%v: %s, want %s", c.err, o.Kind, c.kind)
		}
	}
}

// TestRunCommandConfined runs under the selected backend: the model sees
// /workspace for pwd, and a write outside the writable roots fails — the
// same write succeeds unconfined (the control), so the check can fail.
func TestRunCommandConfined(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	if f.sb.Backend() == "" {
		testenv.Need(t, "a confinement backend", errNoBackend)
	}
	// Outside /tmp, which the sandbox replaces with a private one: a write
	// there really reaches the host unless it is refused.
	outside, err := os.MkdirTemp("/var/tmp", "ringfence-tools-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	target := filepath.Join(outside, "escaped")
	r := f.call("run_command", obj_{"command": "pwd; echo x > " + target})
	d := r.Data.(*ringfence.ExecResult)
	if !strings.HasPrefix(d.Stdout, "/workspace\n") || strings.Contains(r.Text, f.root) {
		t.Fatalf("pwd under %s:\n%s", d.Backend, r.Text)
	}
	if _, err := os.Stat(target); err == nil || r.Outcome.Kind == outcome.OK {
		t.Fatalf("confined command wrote outside the roots (%s):\n%s", r.Outcome.Kind, r.Text)
	}
	// The model is told where it may write instead, as model paths.
	if !strings.Contains(r.Text, "writable roots (") || !strings.Contains(r.Text, "/workspace)") {
		t.Errorf("the narration does not name the writable roots:\n%s", r.Text)
	}
	u := dangerFixture(t, Options{})
	u.call("run_command", obj_{"command": "echo x > " + target})
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("control: unconfined write failed: %v", err)
	}
}

type noBackend struct{}

func (noBackend) Error() string { return "ringfence selected no backend on this host (backends.go)" }

var errNoBackend error = noBackend{}
