package outcome

// Dialect is how one backend says what happened: the stderr substrings a
// denial by THIS backend produces, and the evidence that it failed before
// the command ran. A cross-backend union is never used: it would claim
// denials a given backend never emits.
type Dialect struct {
	Backend          string              `json:"backend"`
	DenialSignatures []string            `json:"denialSignatures,omitempty"`
	RunnerFailure    []RunnerFailureRule `json:"runnerFailure,omitempty"`
}

// RunnerFailureRule is stderr evidence that a runner failed before it ran
// the command. It is consulted only when the status channel is silent: a
// status record that says the command started always wins over text.
type RunnerFailureRule struct {
	AllowedExitCodes   []int    `json:"allowedExitCodes,omitempty"` // empty: any nonzero
	FatalSignatures    []string `json:"fatalSignatures"`            // case-insensitive substrings
	InformationalLines []string `json:"informationalLines,omitempty"`
	ExcludedSignatures []string `json:"excludedSignatures,omitempty"`
}
