package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// TestRunNarratedOnce: a run's outcome is narrated once, by the facade from
// the call's own policy, and the tool shows that narration; the Set's own
// context (the session's, made at New) never narrates it again. The
// session context is made to disagree here (another mode, other writable
// roots); before issue 13 the tool re-narrated from it, and the text named
// them.
func TestRunNarratedOnce(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.set.nc.Mode = "session-mode-that-disagrees"
	f.set.nc.WriteRoots = []string{"/session/roots/that/disagree"}
	r := f.set.Call(t.Context(), "run_command", json.RawMessage(`{"command":"echo x > /etc/ringfence-h13c-probe"}`))
	d, ok := r.Data.(*ringfence.ExecResult)
	if !ok || r.Outcome.Kind == outcome.OK {
		t.Fatalf("the write outside the workspace was not refused: %s %s", r.Outcome.Kind, r.Text)
	}
	if d.Narration == "" || !strings.HasSuffix(r.Text, d.Narration) {
		t.Fatalf("the text does not end with the call's narration %q:\n%s", d.Narration, r.Text)
	}
	if strings.Contains(r.Text, "disagree") {
		t.Fatalf("the text was narrated again from the session's context:\n%s", r.Text)
	}
	// A tool's own outcome (here a refused path) is still narrated, in
	// the session's context.
	r = f.set.Call(t.Context(), "read_file", json.RawMessage(`{"path":"../x"}`))
	if r.Outcome.Kind != outcome.PathRejected || !strings.Contains(r.Text, "../x") {
		t.Fatalf("a tool's own refusal is not narrated: %s %q", r.Outcome.Kind, r.Text)
	}
}
