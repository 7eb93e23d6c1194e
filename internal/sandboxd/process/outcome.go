package process

import (
	"encoding/json"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/outcome"
)

// Trailing metadata keys of ringfence's outcome: an addition a standard
// client never has to read (the messages are the standard's, unchanged).
const (
	// TrailerKind is the result's kind (success, denied, command-failure, …).
	TrailerKind = "ringfence-kind"
	// TrailerOutcome is the Outcome JSON (binary metadata: base64 on the wire).
	TrailerOutcome = "ringfence-outcome-bin"
)

// Outcome is what ringfence adds to a process's end.
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
}

// exitCode is the standard's exit_code: the command's own, or -1 when it
// did not exit by itself (a signal, a timeout, the session ending) — as
// the reference daemon reports a signalled child.
func exitCode(r *sandbox.ExecResult) int32 {
	if r.ExitCode != nil {
		return int32(*r.ExitCode)
	}
	return -1
}

// trailer is the outcome as trailing metadata.
func trailer(r *sandbox.ExecResult, cut *sandbox.Truncated) metadata.MD {
	o := Outcome{Kind: r.Kind, ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut,
		Breach: r.Breach, Violations: r.Violations, Narration: r.Narration, Backend: r.Backend,
		Enforcement: r.Enforcement, Truncated: cut}
	b, _ := json.Marshal(o) // plain data: never fails
	return metadata.Pairs(TrailerKind, string(r.Kind), TrailerOutcome, string(b))
}
