package audit

import (
	"encoding/json"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

// TimeFormat is the record time: RFC 3339 with milliseconds, UTC.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Record is one tool call.
type Record struct {
	Time string `json:"time"`
	// Session is the session's label (SessionLabel), never its id.
	Session string `json:"session"`
	Tool    string `json:"tool"`
	// Args are the call's arguments with contents replaced (see Args).
	Args   map[string]any `json:"args,omitempty"`
	Policy string         `json:"policy,omitempty"`
	// Classification of run_command: the riskiest part's capability and
	// what the table made of it, and every program the line runs.
	Capability  string   `json:"capability,omitempty"`
	Classified  string   `json:"classified,omitempty"`
	Programs    []string `json:"programs,omitempty"`
	Permissions []string `json:"permissions,omitempty"`
	// Gate is what the approval step did ("" when none was needed).
	Gate        string               `json:"gate,omitempty"`
	Approval    string               `json:"approval,omitempty"`
	Backend     string               `json:"backend,omitempty"`
	Enforcement *confine.Enforcement `json:"enforcement,omitempty"`
	Outcome     string               `json:"outcome"`
	// Reason, Path: the outcome's reason and model path, when it has them.
	Reason     string              `json:"reason,omitempty"`
	Path       string              `json:"path,omitempty"`
	IsError    bool                `json:"isError,omitempty"`
	DurationMS float64             `json:"durationMs"`
	Violations []outcome.Violation `json:"violations,omitempty"`
}

// Call is what the server knows of one call.
type Call struct {
	At time.Time
	// Session is the session id; the record holds only its label.
	Session string
	Tool    string
	Args    json.RawMessage
	Policy  string
	Result  tools.Result
}

// FromCall builds the record of one call.
func FromCall(c Call) Record {
	a := c.Result.Audit
	r := Record{
		Time:        c.At.UTC().Format(TimeFormat),
		Session:     SessionLabel(c.Session),
		Tool:        c.Tool,
		Args:        Args(c.Args),
		Policy:      c.Policy,
		Capability:  a.Capability,
		Classified:  a.Classified,
		Programs:    a.Programs,
		Permissions: a.Permissions,
		Gate:        a.Gate,
		Approval:    a.Approval,
		Backend:     a.Backend,
		Enforcement: a.Enforcement,
		Outcome:     string(c.Result.Outcome.Kind),
		Reason:      c.Result.Outcome.Reason,
		Path:        c.Result.Outcome.Path,
		IsError:     c.Result.IsError,
		DurationMS:  float64(a.Duration.Microseconds()) / 1000,
		Violations:  a.Violations,
	}
	return r
}
