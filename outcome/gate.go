package outcome

// The reasons of a gate-unavailable outcome.
const (
	// ReasonNoGate: the caller has no approval channel at all.
	ReasonNoGate = "no-gate"
	// ReasonNoApprover: there is a channel, but the client on it cannot
	// approve (an MCP client without elicitation, or an HTTP session whose
	// credential is not an approver's). Like no-gate, it never changes by
	// retrying, so the narration says so instead of "retry later".
	ReasonNoApprover = "no-approver"
	// ReasonGateTimeout: nobody answered within the gate's timeout.
	ReasonGateTimeout = "timeout"
	// ReasonGateError: the question could not be put or answered.
	ReasonGateError = "error"
)
