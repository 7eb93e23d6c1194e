package wire

import (
	"encoding/json"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/outcome"
)

// The extension's names: additions a standard client never has to read.
const (
	// TrailerKind is the result's kind (success, denied, command-failure, …).
	TrailerKind = "ringfence-kind"
	// TrailerOutcome is the Outcome JSON (binary metadata: base64 on the wire).
	TrailerOutcome = "ringfence-outcome-bin"
	// OutcomeHeader carries ringfence's outcome of a /v1/files call, as
	// JSON (ASCII only), on every answer.
	OutcomeHeader = "Ringfence-Outcome"
)

// Outcome is what ringfence adds to a process's end: the fields of the
// ExecResult the standard's messages do not carry.
type Outcome struct {
	Kind        sandbox.Kind        `json:"kind"`
	ExitCode    *int                `json:"exitCode"`
	Signal      string              `json:"signal,omitempty"`
	TimedOut    bool                `json:"timedOut,omitempty"`
	Breach      string              `json:"breach,omitempty"`
	Violations  []outcome.Violation `json:"violations"`
	Narration   string              `json:"narration"`
	Backend     string              `json:"backend"`
	Enforcement sandbox.Enforcement `json:"enforcement"`
	// Truncated counts the bytes of each stream Execute saw when it
	// returned only the first MaxExecuteOutput of them.
	Truncated *sandbox.Truncated `json:"truncated,omitempty"`
	// Outcome is the model-facing outcome (in model paths, as narrated);
	// absent from servers older than it, whose client then knows only
	// Kind.
	Outcome *outcome.Outcome `json:"outcome,omitempty"`
}

// Trailer is r's outcome as trailing metadata; cut, when set, says how
// much of each stream the server saw beyond what it returned.
func Trailer(r *sandbox.ExecResult, cut *sandbox.Truncated) metadata.MD {
	oc := r.Outcome
	o := Outcome{Kind: r.Kind, ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut,
		Breach: r.Breach, Violations: r.Violations, Narration: r.Narration, Backend: r.Backend,
		Enforcement: r.Enforcement, Truncated: cut, Outcome: &oc}
	if oc.Kind == "" {
		o.Outcome = nil
	}
	b, _ := json.Marshal(o) // plain data: never fails
	return metadata.Pairs(TrailerKind, string(r.Kind), TrailerOutcome, string(b))
}

// FromTrailer reads the outcome from md; ok is false when there is none
// (the reference daemon) or it is not to be believed (see the package
// doc).
func FromTrailer(md metadata.MD) (o Outcome, ok bool) {
	kinds, bins := md.Get(TrailerKind), md.Get(TrailerOutcome)
	if len(kinds) != 1 || len(bins) != 1 {
		return Outcome{}, false
	}
	if json.Unmarshal([]byte(bins[0]), &o) != nil || !o.Kind.Known() || string(o.Kind) != kinds[0] {
		return Outcome{}, false
	}
	if o.Outcome != nil {
		if k, ok := outcome.ExecKindOf(o.Outcome.Kind); !ok || k != o.Kind {
			return Outcome{}, false
		}
	}
	return o, true
}
