package outcome

import (
	"slices"
	"testing"

	"github.com/ringfence/ringfence/internal/status"
)

// TestExecKindTable: every model-facing kind, and the exec kind a command
// ending in it has (or none: a refusal before anything ran, a file tool's
// answer). A kind added to outcome.go fails here until it is placed.
func TestExecKindTable(t *testing.T) {
	want := map[Kind]ExecKind{
		OK:               ExecSuccess,
		SandboxViolation: ExecDenied,
		NonzeroExit:      ExecCommandFailure,
		NotFound:         ExecCommandFailure,
		RunnerFailure:    ExecRunnerFailure,
		TimedOut:         ExecTimedOut,
		Aborted:          ExecAborted,
		OverBudget:       ExecOverBudget,
	}
	none := []Kind{DeniedByPolicy, GateDeclined, GateUnavailable, ScopeLimited, NotARegularFile, IsADirectory,
		PathRejected, OutsideWriteRoot, NoMatches, UnknownMedia, InvalidPattern, NotADirectory, IOFailure,
		InvalidArguments, Unavailable, MissingProgram}
	for _, k := range Kinds() {
		e, ok := ExecKindOf(k)
		w, listed := want[k]
		switch {
		case listed && (!ok || e != w):
			t.Errorf("ExecKindOf(%s) = %q %v, want %q", k, e, ok, w)
		case !listed && !slices.Contains(none, k):
			t.Errorf("kind %s is in neither table of this test: place it", k)
		case !listed && (ok || e != ""):
			t.Errorf("ExecKindOf(%s) = %q %v, want none", k, e, ok)
		}
		if got := ResultKind(Outcome{Kind: k}); listed && got != w || !listed && got != ExecRunnerFailure {
			t.Errorf("ResultKind(%s) = %q", k, got)
		}
	}
	// Every exec kind has a situation, and SituationOf is one of its own.
	for _, e := range ExecKinds() {
		if !e.Known() {
			t.Errorf("%q not Known", e)
		}
		if k, ok := ExecKindOf(SituationOf(e)); !ok || k != e {
			t.Errorf("SituationOf(%q) = %s, which maps back to %q", e, SituationOf(e), k)
		}
	}
	if len(ExecKinds()) != len(situations) || ExecKind("").Known() || ExecKind("fine").Known() {
		t.Error("ExecKinds, situations and Known disagree")
	}
	if SituationOf("fine") != RunnerFailure || ResultKind(Outcome{}) != ExecRunnerFailure {
		t.Error("an unknown kind is not a runner failure")
	}
}

// TestFromExecAgreesWithExecKind: for every classification ClassifyExec
// can give (each exec kind, with the reasons that split command-failure),
// the outcome FromExec makes maps back to the classification's kind — the
// fact that lets the pipeline derive the result's Kind from its Outcome.
func TestFromExecAgreesWithExecKind(t *testing.T) {
	one := 1
	for _, e := range ExecKinds() {
		for _, reason := range []string{"", status.NotFound, status.NotExecutable, status.SetupFailed} {
			for _, breach := range []Breach{BreachNone, BreachMemory, BreachWallClock, BreachOutput} {
				cls := ExecClass{Kind: e, Reason: reason, ExitCode: &one}
				o := FromExec(cls, Evidence{Breach: breach, TimedOut: e == ExecTimedOut}, ExecLimits{}, goldenContext)
				if k, ok := ExecKindOf(o.Kind); !ok || k != e {
					t.Errorf("%s (reason %q, breach %q): outcome %s maps to %q %v", e, reason, breach, o.Kind, k, ok)
				}
			}
		}
	}
}

// FuzzExecKindOf: any string read as a kind maps to a known exec kind or
// to none, never to an unknown one, and back into its own situations.
func FuzzExecKindOf(f *testing.F) {
	for _, k := range Kinds() {
		f.Add(string(k))
	}
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		e, ok := ExecKindOf(Kind(s))
		if ok != (e != "") || ok && (!e.Known() || !slices.Contains(situations[e], Kind(s))) {
			t.Fatalf("ExecKindOf(%q) = %q %v", s, e, ok)
		}
		if !ResultKind(Outcome{Kind: Kind(s)}).Known() || !ExecKind(s).Known() && SituationOf(ExecKind(s)) != RunnerFailure {
			t.Fatalf("%q: an unknown kind read as a known one", s)
		}
	})
}
