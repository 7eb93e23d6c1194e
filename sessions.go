package ringfence

import "github.com/ringfence/ringfence/internal/sandbox"

// A Session is one confined environment that lives until it is closed (see
// Local.Session and the package documentation's Sessions section): each
// Start is forked and executed by the session's already-confined init, so
// background processes, /tmp and loopback persist between calls. A Cmd
// whose own request resolves to a policy other than the session's is
// refused with ErrSessionPolicy and never runs in it.
type Session = sandbox.Session

// SessionOptions bound a session.
type SessionOptions = sandbox.SessionOptions

// Cmd is one command to start in a session.
type Cmd = sandbox.Cmd

// Process is one command started in a session.
type Process = sandbox.Process

// Ring keeps the most recent bytes of a stream and counts the rest.
type Ring = sandbox.Ring

// NewRing keeps size bytes.
func NewRing(size int) *Ring { return sandbox.NewRing(size) }

// PolicyMismatchError is ErrSessionPolicy with what differed.
type PolicyMismatchError = sandbox.PolicyMismatchError

// Session defaults.
const (
	DefaultSessionIdle      = sandbox.DefaultSessionIdle
	DefaultSessionProcesses = sandbox.DefaultSessionProcesses
	DefaultOutputKept       = sandbox.DefaultOutputKept
)

// Errors of sessions (the same values the pipeline returns: errors.Is
// matches them).
var (
	// ErrSessionPolicy: the call's resolved policy is not the session's.
	ErrSessionPolicy = sandbox.ErrSessionPolicy
	ErrSessionClosed = sandbox.ErrSessionClosed
	// ErrSessionUnsupported: the selected backend has no sessions.
	ErrSessionUnsupported = sandbox.ErrSessionUnsupported
	ErrSessionFull        = sandbox.ErrSessionFull
)

// OneShotSessionReasons say, in every result of a one-shot session's
// process (Enforcement.Reasons) and in Session.Reasons, what such a session
// does not share.
var OneShotSessionReasons = sandbox.OneShotSessionReasons

// SessionsOn reports whether a Local on backend has sessions: linux (one
// shared init) or landlock (one-shot runs, Shared false).
func SessionsOn(backend string) bool { return sandbox.SessionsOn(backend) }
