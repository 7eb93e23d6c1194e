package outcome

import (
	"slices"
	"strings"

	"github.com/ringfence/ringfence/internal/status"
)

// runnerFailed decides whether the sandbox, not the command, failed. When
// the backend has a status channel it alone decides: a Started record means
// the command ran, whatever stderr says, because the command never holds
// that descriptor and cannot write it. Only a backend without a channel
// falls back to its own stderr rules.
func runnerFailed(r *ExecClass, ev Evidence, d Dialect, stderr stderrText) bool {
	if ev.StatusChannel {
		return fromStatus(r, ev.Status, d, stderr)
	}
	return fromRules(r, d, stderr)
}

func fromStatus(r *ExecClass, s status.Summary, d Dialect, stderr stderrText) bool {
	switch {
	case s.Started:
		return false
	case s.Failure != nil:
		failed(r, *s.Failure, d.Backend)
		return true
	case s.Silent || s.Exit == nil:
		// The runner died before it could say anything: the command was
		// never executed (Started is written before exec). A matching rule
		// only supplies the evidence line. A zero Summary counts as silent
		// whether or not its Silent flag was set.
		runnerFailure(r, d.Backend, "", RunnerSilent)
		if line, ok := matchRules(d.RunnerFailure, r.ExitCode, stderr); ok {
			r.Evidence = cutUTF8(line, maxEvidence)
		}
		return true
	}
	return false
}

// Exit codes a shell gives a program it could not run, whatever the
// runner itself exited with (the linux init exits 125 for any failed step).
const (
	ExitNotExecutable = 126
	ExitNotFound      = 127
)

// failed turns a Failed record into a result. A program that does not
// exist or cannot be executed is the command's own failure (a typo is not
// the sandbox's fault), with the exit code a shell would give it; every
// other failed step is the runner's.
func failed(r *ExecClass, f status.Event, backend string) {
	if f.Reason == status.NotFound || f.Reason == status.NotExecutable {
		r.Kind, r.Stage, r.Reason = ExecCommandFailure, f.Stage, f.Reason
		code := ExitNotExecutable
		if f.Reason == status.NotFound {
			code = ExitNotFound
		}
		r.ExitCode, r.Signal = &code, ""
		return
	}
	reason := f.Reason
	if reason == "" {
		reason = status.SetupFailed
	}
	runnerFailure(r, backend, f.Stage, reason)
	if f.Errno != "" {
		r.Violations[0].Snippet += oneLine(" (" + cutUTF8(f.Errno, 32) + ")")
	}
}

func runnerFailure(r *ExecClass, backend, stage, reason string) {
	r.Kind, r.Stage, r.Reason = ExecRunnerFailure, stage, reason
	snippet := reason
	if stage != "" {
		snippet = stage + ": " + reason
	}
	snippet = oneLine(cutUTF8(snippet, maxSnippet-40))
	r.Violations = []Violation{{Backend: backend, Reason: ReasonRunnerFailure, Snippet: snippet}}
}

// fromRules is the fallback for a backend with no status channel: its own
// diagnostics on stderr, with its own exit codes. Known gap: a command can
// forge these, which is why every backend ringfence ships has a channel.
func fromRules(r *ExecClass, d Dialect, stderr stderrText) bool {
	line, ok := matchRules(d.RunnerFailure, r.ExitCode, stderr)
	if !ok {
		return false
	}
	runnerFailure(r, d.Backend, "", RunnerDiagnostic)
	r.Evidence = cutUTF8(line, maxEvidence)
	r.Violations[0].Snippet = oneLine(cutUTF8(line, maxSnippet))
	return true
}

func matchRules(rules []RunnerFailureRule, code *int, stderr stderrText) (string, bool) {
	for _, rule := range rules {
		if line, ok := matchRule(rule, code, stderr); ok {
			return line, true
		}
	}
	return "", false
}

// matchRule finds the first line that proves rule: informational lines
// (whole-line, case-insensitive) are dropped, a line with an excluded
// signature cannot prove anything (the runner's report of the child's own
// failed exec looks like its diagnostics), and a fatal signature proves it.
func matchRule(rule RunnerFailureRule, code *int, stderr stderrText) (string, bool) {
	if code == nil || *code == 0 {
		return "", false
	}
	if len(rule.AllowedExitCodes) > 0 && !slices.Contains(rule.AllowedExitCodes, *code) {
		return "", false
	}
	fatal, excluded := lowered(rule.FatalSignatures), lowered(rule.ExcludedSignatures)
	for line, lower := range stderr.lines() {
		if informational(line, rule.InformationalLines) {
			continue
		}
		if containsAny(lower, excluded) {
			continue
		}
		if containsAny(lower, fatal) {
			return line, true
		}
	}
	return "", false
}

func informational(line string, info []string) bool {
	t := strings.TrimSpace(line)
	for _, i := range info {
		if strings.EqualFold(t, strings.TrimSpace(i)) {
			return true
		}
	}
	return false
}

// lowered drops empty signatures: an empty substring matches every line
// and would turn a dialect typo into "everything is a denial".
func lowered(sigs []string) []string {
	out := make([]string, 0, len(sigs))
	for _, s := range sigs {
		if s = asciiLower(s); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// oneLine keeps a snippet to one line whatever the runner wrote.
func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
