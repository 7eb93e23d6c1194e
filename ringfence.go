package ringfence

import (
	"github.com/ringfence/ringfence/internal/sandbox"
)

// The root package is the public facade: every name below is the one the
// pipeline in internal/sandbox defines (a type alias, a constant, or a
// function that only forwards), so a value made here is the value the
// internal packages handle and no internal package needs to import the
// root. Each name keeps its documented meaning; the full manuals of the
// types' fields and methods are in their definitions (go doc shows them
// through the alias).

// Sandbox is where an agent's commands run and its files live: the contract
// the conformance suite checks. ringfence's own Local implements it; a
// container runner, a VM or a hosted sandbox can too.
type Sandbox = sandbox.Sandbox

// Isolation is what a sandbox claims to isolate. The conformance suite
// checks every claim it can observe, so a sandbox that claims nothing it
// lacks passes, and one that over-claims fails.
type Isolation = sandbox.Isolation

// Local is ringfence's own sandbox: commands confined by the best backend
// this host offers, files through the policy-fenced workspace.
type Local = sandbox.Local

// Config configures a Local sandbox. Only Root is required; the zero
// Config (only Root set) is the agent profile.
type Config = sandbox.Config

// HomeConfig is how commands see the user's home.
type HomeConfig = sandbox.HomeConfig

// ExecOptions are the options of one command.
type ExecOptions = sandbox.ExecOptions

// Terminal asks Exec to run the command on a new pseudo-terminal that
// ringfence opens and relays, never on the user's own terminal.
type Terminal = sandbox.Terminal

// WindowSize is a terminal's size.
type WindowSize = sandbox.WindowSize

// ExecResult is what one command did. Its JSON form is the stable output of
// `ringfence run --json`.
type ExecResult = sandbox.ExecResult

// Kind is what one command turned out to be. It is outcome.ExecKind, so a
// classification and a result compare without conversion, and a result's
// Kind is a function of its Outcome.Kind (outcome.ExecKindOf), never set
// apart from it.
type Kind = sandbox.Kind

// The result kinds; the strings are the stable JSON of ExecResult.Kind.
const (
	KindSuccess        = sandbox.KindSuccess        // ran and exited 0
	KindDenied         = sandbox.KindDenied         // the sandbox refused something it did
	KindCommandFailure = sandbox.KindCommandFailure // ran (or was missing) and failed on its own
	KindRunnerFailure  = sandbox.KindRunnerFailure  // the sandbox failed; the command never ran
	KindTimedOut       = sandbox.KindTimedOut       // its timeout or the context's deadline ended it
	KindAborted        = sandbox.KindAborted        // the context was cancelled
	KindOverBudget     = sandbox.KindOverBudget     // a resource limit ended it
)

// Truncated reports output cut at a ceiling: the bytes seen on each stream
// in total (zero for a stream that was not cut).
type Truncated = sandbox.Truncated

// Enforcement is what this command was actually held to, as a fact.
type Enforcement = sandbox.Enforcement

// NetworkDecision is one connection the domains network's policy proxy
// decided: how it arrived, where it went, the verdict and the rule that
// decided, the reason for a refusal, and what it carried.
type NetworkDecision = sandbox.NetworkDecision

// SessionRun is where a command ran, as a caller with a session reports it.
type SessionRun = sandbox.SessionRun

// Where a command ran (SessionRun.In).
const (
	RanInSession = sandbox.RanInSession
	RanOneShot   = sandbox.RanOneShot
)

// Backends are the backend names Config.Backend accepts, strongest first;
// "auto" picks the first that works on this host.
var Backends = sandbox.Backends

// DefaultPath is the PATH a command gets when neither the host nor the
// configuration gives a usable one.
const DefaultPath = sandbox.DefaultPath

// DefaultKillAfter is the grace between SIGTERM and SIGKILL when a command
// is stopped for its timeout or a cancellation (as `timeout -k`).
const DefaultKillAfter = sandbox.DefaultKillAfter

// New prepares a sandbox over cfg.Root. It creates a private temp dir (the
// one workspace-write grants besides the root), removed by Close.
func New(cfg Config) (*Local, error) { return sandbox.New(cfg) }

// ClearHome drops the private home layer of the workspace at root (its
// toolchain caches and everything commands wrote under home), or every
// workspace's when root is "". It returns the directory removed.
func ClearHome(cfg HomeConfig, root string) (string, error) { return sandbox.ClearHome(cfg, root) }
