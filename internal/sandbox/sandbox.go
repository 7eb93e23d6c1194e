package sandbox

import (
	"context"
	"io"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/outcome"
)

// Isolation is what a sandbox claims to isolate. The conformance suite
// checks every claim it can observe, so a sandbox that claims nothing it
// lacks passes, and one that over-claims fails.
type Isolation struct {
	Filesystem bool `json:"filesystem"` // commands cannot write (or read denied) host files
	Network    bool `json:"network"`    // commands cannot reach the network beyond what the policy allows
	Processes  bool `json:"processes"`  // commands cannot see or signal host processes
}

// ExecOptions are the options of one command.
type ExecOptions struct {
	// Dir is the working directory as a model path relative to the
	// workspace ("" is the workspace root).
	Dir string
	// NetworkAsk, under the domains network with asking on (policy
	// Network.Ask), is asked about each connection to a host no rule
	// names while the proxy holds it (at most two minutes). false, an
	// error or nil: the connection is blocked.
	NetworkAsk func(ctx context.Context, host string, port int) (bool, error)
	// Env is added to the allow-listed environment (PATH by default). The
	// host's own environment is never passed through.
	Env map[string]string
	// Stdin is the command's standard input; nil is empty input.
	Stdin io.Reader
	// Timeout stops the whole process tree; zero uses the sandbox's default.
	Timeout time.Duration
	// Stdout and Stderr, when set, receive the output live as it arrives,
	// while the result still carries the bounded copy. With either set, a
	// command that prints past the ceiling keeps running (the reader has
	// every byte); without, it is stopped and reported over-budget.
	Stdout, Stderr io.Writer
	// Terminal, when set, runs the command on a new pseudo-terminal that
	// ringfence opens and relays (see Terminal). Other implementations of
	// Sandbox may ignore it.
	Terminal *Terminal
}

// Truncated reports output cut at a ceiling: the bytes seen on each stream
// in total (zero for a stream that was not cut). It is the supervisor's own
// record (run.Truncated), not a copy.
type Truncated = run.Truncated

// Enforcement is what this command was actually held to, as a fact: the
// backend's own record (confine.Enforcement) with the supervisor's
// Resources and the /tmp fate filled in, not a copy.
type Enforcement = confine.Enforcement

// Kind is what one command turned out to be. It is outcome.ExecKind, so a
// classification and a result compare without conversion, and a result's
// Kind is a function of its Outcome.Kind (outcome.ExecKindOf), never set
// apart from it.
type Kind = outcome.ExecKind

// The result kinds; the strings are the stable JSON of ExecResult.Kind.
const (
	KindSuccess        = outcome.ExecSuccess        // ran and exited 0
	KindDenied         = outcome.ExecDenied         // the sandbox refused something it did
	KindCommandFailure = outcome.ExecCommandFailure // ran (or was missing) and failed on its own
	KindRunnerFailure  = outcome.ExecRunnerFailure  // the sandbox failed; the command never ran
	KindTimedOut       = outcome.ExecTimedOut       // its timeout or the context's deadline ended it
	KindAborted        = outcome.ExecAborted        // the context was cancelled
	KindOverBudget     = outcome.ExecOverBudget     // a resource limit ended it
)

// ExecResult is what one command did. Its JSON form is the stable output of
// `ringfence run --json`.
type ExecResult struct {
	// Kind is one of the Kind constants (KindSuccess …); its JSON is the
	// string: success, denied, command-failure, runner-failure, timed-out,
	// aborted or over-budget. It is a pure function of Outcome.Kind
	// (outcome.ExecKindOf; the pipeline sets it only through
	// outcome.ResultKind): the coarse kind to switch on, where Outcome.Kind
	// is the situation (command-failure is not-found or nonzero-exit). Both
	// stay in the JSON, which is stable. Empty only on a progress report of
	// a process still running (Session.Running).
	Kind        Kind                `json:"kind"`
	ExitCode    *int                `json:"exitCode"` // null when the command was stopped or never ran
	Signal      string              `json:"signal,omitempty"`
	Stdout      string              `json:"stdout"`
	Stderr      string              `json:"stderr"`
	Truncated   *Truncated          `json:"truncated,omitempty"`
	TimedOut    bool                `json:"timedOut"`
	DurationMs  int64               `json:"durationMs"`
	Backend     string              `json:"backend"`
	Enforcement Enforcement         `json:"enforcement"`
	Breach      string              `json:"breach,omitempty"` // the resource limit that ended it
	Violations  []outcome.Violation `json:"violations"`
	// Network is every decision the domains network's proxy made (up to
	// 1000; NetworkDropped counts the rest); empty under other modes.
	Network        []NetworkDecision `json:"network,omitempty"`
	NetworkDropped int               `json:"networkDropped,omitempty"`
	Narration      string            `json:"narration"`
	Outcome        outcome.Outcome   `json:"outcome"`
	// RunnerError is why the runner itself could not be started, for the
	// person operating ringfence (never narrated to the model).
	RunnerError string `json:"runnerError,omitempty"`
	// Env names the variables the command was given (names only, never
	// values), so a person can see what passed the allow-list.
	Env []string `json:"env,omitempty"`
	// Session says where the command ran when its caller could run it in
	// a long-lived Session (the MCP tools do): in the session, or one-shot
	// and why. nil from Exec and ExecRequest themselves.
	Session *SessionRun `json:"session,omitempty"`
}

// SessionRun is where a command ran, as a caller with a session reports it.
type SessionRun struct {
	// In is "session" (in the caller's long-lived session: its /tmp, its
	// loopback, its background processes) or "one-shot" (a fresh sandbox
	// that ended with the command).
	In string `json:"in"`
	// Why a command ran one-shot: its policy differs from the session's,
	// the backend has no sessions, the session is full.
	Why string `json:"why,omitempty"`
	// ProcessID is the caller's id of a process that still runs (Running),
	// for the caller's later calls about it.
	ProcessID int  `json:"processId,omitempty"`
	Running   bool `json:"running,omitempty"`
}

// Where a command ran (SessionRun.In).
const (
	RanInSession = "session"
	RanOneShot   = "one-shot"
)

// Sandbox is where an agent's commands run and its files live: the contract
// the conformance suite checks. ringfence's own Local implements it; a
// container runner, a VM or a hosted sandbox can too.
type Sandbox interface {
	// Isolation is what the sandbox claims to isolate.
	Isolation() Isolation
	// Exec runs argv (program first, never a shell string; pass
	// ["sh", "-c", line] for a command line) where the files are.
	Exec(ctx context.Context, argv []string, opts ExecOptions) (*ExecResult, error)
	// ReadFile reads a file by model path, refusing one larger than maxBytes.
	ReadFile(ctx context.Context, path string, maxBytes int64) ([]byte, error)
	// WriteFile writes a file by model path, atomically.
	WriteFile(ctx context.Context, path string, data []byte) error
	// Close releases the sandbox; it must be safe to call twice.
	Close() error
}
