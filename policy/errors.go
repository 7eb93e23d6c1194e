package policy

import "strconv"

// maxValue bounds how much of an offending value an error repeats: enough to
// recognise a typo, never a whole payload.
const maxValue = 96

// clip shortens s for an error message and quotes it.
func clip(s string) string {
	if len(s) > maxValue {
		s = s[:maxValue] + "…"
	}
	return strconv.Quote(s)
}

// EscalationError is a request that asked for more than the deployment and
// the session allow, without an approval that covers it. It names the field
// asked for and, where there is one, the path or domain — nothing else.
type EscalationError struct {
	What string // "write entry", "mode workspace-write", "network allow-all", "network domain", "limit memory", …
	Path string // the path or domain asked for, or ""
}

func (e *EscalationError) Error() string {
	s := "policy refused: request asks for " + e.What
	if e.Path != "" {
		s += " " + clip(e.Path)
	}
	return s + " without an approval"
}

// Unwrap makes every escalation an ErrPolicy.
func (e *EscalationError) Unwrap() error { return ErrPolicy }

// InvalidError is a value that cannot be part of a policy at all: a
// relative path, an unknown mode name, a negative limit.
type InvalidError struct {
	Field  string // "mode", "entry", "cwd", "size", …
	Value  string // the offending value (clipped in the message)
	Reason string
}

func (e *InvalidError) Error() string {
	s := "policy refused: invalid " + e.Field
	if e.Value != "" {
		s += " " + clip(e.Value)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unwrap makes every invalid value an ErrPolicy.
func (e *InvalidError) Unwrap() error { return ErrPolicy }

// ApprovalError is an approval that cannot be used: not minted by Approve,
// expired, already spent, or minted for another session.
type ApprovalError struct {
	Reason string // one of the ApprovalReason constants
}

// The reasons an approval is refused.
const (
	ApprovalNotMinted    = "approval not minted by policy.Approve"
	ApprovalExpired      = "approval expired"
	ApprovalUsed         = "approval already used"
	ApprovalOtherSession = "approval belongs to another session"
)

func (e *ApprovalError) Error() string { return "policy refused: " + e.Reason }

// Unwrap makes every refused approval an ErrPolicy.
func (e *ApprovalError) Unwrap() error { return ErrPolicy }
