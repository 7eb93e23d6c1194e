package outcome

import (
	"strings"

	"github.com/ringfence/ringfence/internal/status"
)

// ExecKind is what a finished confined command turned out to be.
type ExecKind string

// The exec kinds. Exactly one describes each run.
const (
	ExecSuccess        ExecKind = "success"
	ExecDenied         ExecKind = "denied"          // confinement worked and refused something
	ExecCommandFailure ExecKind = "command-failure" // the command ran and failed on its own
	ExecRunnerFailure  ExecKind = "runner-failure"  // the sandbox failed; the command never ran
	ExecTimedOut       ExecKind = "timed-out"
	ExecAborted        ExecKind = "aborted"
	ExecOverBudget     ExecKind = "over-budget"
)

// Breach names the limit a command went past: the supervisor
// (internal/run) reports it with these very values, and classification
// reads them, so there is one vocabulary for both.
type Breach string

// Breaches, as the supervisor names the limit that ended a run.
const (
	BreachNone      Breach = ""
	BreachMemory    Breach = "memory"
	BreachProcesses Breach = "processes"
	BreachCPU       Breach = "cpu"
	BreachWallClock Breach = "wall-clock"
	BreachOutput    Breach = "output"
)

// Reasons a runner failure carries when the status channel gave none.
const (
	RunnerSilent     = "silent"     // the status channel closed with no record
	RunnerDiagnostic = "diagnostic" // no status channel; the backend's own stderr rule matched
)

// Usage is what the tree consumed, as far as it was observed: the
// supervisor's own record (internal/run.Result.Usage), read as evidence.
type Usage struct {
	PeakMemoryBytes int64 `json:"peakMemoryBytes"`
	PeakProcesses   int   `json:"peakProcesses"`
	CPUMs           int64 `json:"cpuMs"`
}

// Evidence is everything known about one finished run. Each field is a
// fact the supervisor observed; classification only orders them.
type Evidence struct {
	// ProxyEvidence holds the refusals of the domains network's policy
	// proxy: facts from the supervisor, not stderr text.
	ProxyEvidence

	// ExitCode and Signal are how the process the supervisor started ended
	// (nil and "" when the supervisor stopped it). Status.Exit, when the
	// runner sent one, is the command's own wait status and takes
	// precedence: under an init, the supervisor only sees the init.
	ExitCode *int
	Signal   string
	// Stderr is the captured (bounded) standard error.
	Stderr []byte
	// Status is what the status channel said; StatusChannel says whether
	// the backend has one at all.
	Status        status.Summary
	StatusChannel bool
	// TimedOut, Aborted and Breach are the supervisor's own reasons for
	// stopping the tree. Breach is one of the Breach constants or "".
	TimedOut bool
	Aborted  bool
	Breach   Breach
	// Usage and OutputSeen say how much was consumed, for over-budget.
	Usage      Usage
	OutputSeen int64
	// Network is the network mode that denied the command something it
	// could otherwise reach: NetworkDeny, NetworkLoopback, NetworkProxyOnly
	// (domains without a network namespace: every direct connection is
	// refused), or "" when the run was held to none (allow-all, domains
	// with capture, whose proxy reports its own refusals, a backend that enforced no
	// network isolation). Only then is a failed lookup or connection the
	// sandbox's refusal.
	Network string
}

// ExecClass is the classification of one run (what ClassifyExec decided):
// the evidence FromExec turns into an Outcome. Not the public result
// (ringfence.ExecResult), which carries its Kind.
type ExecClass struct {
	Kind ExecKind `json:"kind"`
	// Evidence is the stderr line that decided a denial or a text-based
	// runner failure, verbatim but cut to 512 bytes; "" otherwise.
	Evidence   string      `json:"evidence,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
	// ExitCode and Signal are the command's own ending, as best known.
	ExitCode *int   `json:"exitCode"`
	Signal   string `json:"signal,omitempty"`
	// Stage and Reason say why the runner failed (runner-failure), or that
	// the program was missing or not executable (command-failure, Reason
	// status.NotFound or status.NotExecutable).
	Stage  string `json:"stage,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Network is the network mode that refused a lookup or a connection
	// (a network-denied violation), or "".
	Network string `json:"network,omitempty"`
}

// ClassifyExec decides what a run was. The order is the design's: the
// supervisor's own reasons for stopping it; runner failure, from the status
// channel when the backend has one and from the backend's own stderr rules
// only when it has none; a seccomp kill; the selected backend's denial
// dialect and the network mode's refusals; and finally the exit code.
func ClassifyExec(ev Evidence, d Dialect) ExecClass {
	r := ExecClass{}
	r.ExitCode, r.Signal = exitOf(ev)
	if k, ok := stopped(ev); ok {
		r.Kind, r.ExitCode = k, nil
		return r
	}
	stderr := newStderrText(ev.Stderr)
	if runnerFailed(&r, ev, d, stderr) {
		return r
	}
	seccomp := isSIGSYS(r.Signal)
	if seccomp {
		r.Violations = []Violation{{Backend: d.Backend, Reason: ReasonSeccomp, Snippet: "killed by SIGSYS"}}
	}
	files := denied(&r, d, stderr, ev.Network)
	if networkDenied(&r, ev.Network, d.Backend, stderr) || files || seccomp {
		r.Kind = ExecDenied
		return r
	}
	if proxyDenied(&r, d.Backend, ev.Proxy) {
		r.Kind = ExecDenied
		return r
	}
	r.Kind = ExecCommandFailure
	if r.ExitCode != nil && *r.ExitCode == 0 && r.Signal == "" {
		r.Kind = ExecSuccess
	}
	return r
}

// exitOf prefers the runner's record of the command's own wait status.
func exitOf(ev Evidence) (*int, string) {
	if e := ev.Status.Exit; e != nil && (e.ExitCode != nil || e.Signal != "") {
		return e.ExitCode, e.Signal
	}
	return ev.ExitCode, ev.Signal
}

// stopped reports the supervisor's own facts: they are observations, not
// inference from text, so nothing the command printed can change them.
func stopped(ev Evidence) (ExecKind, bool) {
	switch {
	case ev.Aborted:
		return ExecAborted, true
	case ev.TimedOut || ev.Breach == BreachWallClock:
		return ExecTimedOut, true
	case ev.Breach != "":
		return ExecOverBudget, true
	}
	return "", false
}

// denied records every line in the backend's own dialect and keeps the
// first as the evidence.
// A line the network mode already accounts for (Landlock's EACCES on a
// connect reads "Permission denied" too) is not counted twice.
func denied(r *ExecClass, d Dialect, stderr stderrText, network string) bool {
	sigs := lowered(d.DenialSignatures)
	if len(sigs) == 0 {
		return false
	}
	found := false
	for line, lower := range stderr.lines() {
		if !containsAny(lower, sigs) {
			continue
		}
		if _, ok := netRefusal(line, lower, network); ok {
			continue
		}
		found = true
		if r.Evidence == "" {
			r.Evidence = cutUTF8(line, maxEvidence)
		}
		r.Violations = dedupe(r.Violations, violationOf(d.Backend, line))
		if len(r.Violations) >= MaxViolations {
			break
		}
	}
	return found
}

// isSIGSYS recognises the seccomp kill however the signal was named.
func isSIGSYS(sig string) bool {
	return strings.EqualFold(sig, "SIGSYS") || strings.EqualFold(sig, "SYS")
}
