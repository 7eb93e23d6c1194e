package outcome

// Kind names one situation in the model-facing union. Every tool result is
// exactly one kind, and narration has one sentence shape per kind.
type Kind string

// The model-facing kinds. OK and RunnerFailure extend DESIGN.md's list: a
// success needs a kind too, and a sandbox that failed before the command
// ran must never be told to the model as the command's own failure.
const (
	OK               Kind = "ok"
	NotFound         Kind = "not-found"
	DeniedByPolicy   Kind = "denied-by-policy"
	GateDeclined     Kind = "gate-declined"
	GateUnavailable  Kind = "gate-unavailable"
	OverBudget       Kind = "over-budget"
	ScopeLimited     Kind = "scope-limited"
	NotARegularFile  Kind = "not-a-regular-file"
	IsADirectory     Kind = "is-a-directory"
	PathRejected     Kind = "path-rejected"
	OutsideWriteRoot Kind = "outside-write-root"
	SandboxViolation Kind = "sandbox-violation"
	NonzeroExit      Kind = "nonzero-exit"
	NoMatches        Kind = "no-matches"
	UnknownMedia     Kind = "unknown-media"
	InvalidPattern   Kind = "invalid-pattern"
	NotADirectory    Kind = "not-a-directory"
	IOFailure        Kind = "io-failure"
	Aborted          Kind = "aborted"
	TimedOut         Kind = "timed-out"
	RunnerFailure    Kind = "runner-failure"
	InvalidArguments Kind = "invalid-arguments"
	Unavailable      Kind = "unavailable" // no backend can enforce the policy here
	MissingProgram   Kind = "missing-interpreter"
)

// Outcome is one model-facing result. Only the fields of its Kind are set.
// Paths are model paths (under the mount path, e.g. /workspace/src/a.go),
// never host paths; no field ever holds file contents or command text.
type Outcome struct {
	Kind Kind `json:"kind"`

	Path       string   `json:"path,omitempty"`       // the model path involved
	Axis       string   `json:"axis,omitempty"`       // denied-by-policy: "read" | "write"
	Reason     string   `json:"reason,omitempty"`     // path-rejected: the pathrule reason; gate-unavailable: ReasonNoGate, ReasonNoApprover, ReasonGateTimeout, ReasonGateError; runner-failure: status reason
	Note       string   `json:"note,omitempty"`       // gate-declined: the person's note
	Bound      string   `json:"bound,omitempty"`      // over-budget, scope-limited, timed-out: which bound
	Limit      int64    `json:"limit,omitempty"`      // the bound's value
	Observed   int64    `json:"observed,omitempty"`   // over-budget: at least this much was seen
	Shown      int      `json:"shown,omitempty"`      // scope-limited: how many entries were shown
	FileType   string   `json:"fileType,omitempty"`   // not-a-regular-file: "symlink", "socket", …
	WriteRoots []string `json:"writeRoots,omitempty"` // outside-write-root: the writable roots, as model paths
	ExitCode   *int     `json:"exitCode,omitempty"`   // nonzero-exit, sandbox-violation, ok (commands)
	Signal     string   `json:"signal,omitempty"`
	Violations []string `json:"violations,omitempty"` // sandbox-violation: short evidence, bounded
	// Protected (sandbox-violation) are the refused paths the sandbox holds
	// by name inside a writable root, each with the rule ("src/.envrc
	// (protected name .envrc)"); Unprotected counts the other violations.
	Protected   []string `json:"protected,omitempty"`
	Unprotected int      `json:"unprotected,omitempty"`
	Network     string   `json:"network,omitempty"` // sandbox-violation: the network mode that refused a lookup or connection
	Pattern     string   `json:"pattern,omitempty"` // no-matches, invalid-pattern: the model's own pattern
	Scope       string   `json:"scope,omitempty"`   // no-matches: the model path searched
	Detail      string   `json:"detail,omitempty"`  // io-failure, invalid-pattern, invalid-arguments, unavailable, nonzero-exit (not executable): fixed text, never contents
	Stage       string   `json:"stage,omitempty"`   // runner-failure: which setup step failed
	Program     string   `json:"program,omitempty"` // missing-interpreter: the interpreter name (python3, node…); not-found: the missing program, when the caller names it

	// Blocked (sandbox-violation) are connections the domains network's
	// proxy refused, bounded; Allowed the allowed domains, for the advice.
	Blocked []NetBlock `json:"blocked,omitempty"`
	Allowed []string   `json:"allowed,omitempty"`
}
