package outcome

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ringfence/ringfence/internal/status"
)

func TestFromExec(t *testing.T) {
	lim := ExecLimits{Timeout: 1500 * time.Millisecond, WallClock: 10 * time.Minute, MemoryBytes: 1 << 29,
		Processes: 64, CPUTime: 30 * time.Second, OutputBytes: 1 << 20}
	c := Context{MountPath: "/workspace", HostRoot: "/home/alice/acme"}
	tests := []struct {
		name string
		r    ExecClass
		ev   Evidence
		want Outcome
	}{
		{"success", ExecClass{Kind: ExecSuccess, ExitCode: code(0)}, Evidence{},
			Outcome{Kind: OK, ExitCode: code(0)}},
		{"command failure", ExecClass{Kind: ExecCommandFailure, ExitCode: code(3)}, Evidence{},
			Outcome{Kind: NonzeroExit, ExitCode: code(3)}},
		{"signalled", ExecClass{Kind: ExecCommandFailure, Signal: "SIGSEGV"}, Evidence{},
			Outcome{Kind: NonzeroExit, Signal: "SIGSEGV"}},
		{"missing program", ExecClass{Kind: ExecCommandFailure, ExitCode: code(127), Reason: status.NotFound}, Evidence{},
			Outcome{Kind: NotFound}},
		{"not executable", ExecClass{Kind: ExecCommandFailure, ExitCode: code(126), Reason: status.NotExecutable}, Evidence{},
			Outcome{Kind: NonzeroExit, ExitCode: code(126), Detail: detailNotExecutable}},
		{"denied", ExecClass{Kind: ExecDenied, ExitCode: code(1), Violations: []Violation{
			{Reason: ReasonReadOnly, Path: "/home/alice/acme/x", Snippet: "secret stderr text"},
			{Reason: ReasonPermissionDenied, Snippet: "ls: Permission denied"},
			{Reason: ReasonSeccomp}}}, Evidence{},
			Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{
				"read-only-filesystem: /workspace/x", "permission-denied: ls: Permission denied", "seccomp"}}},
		{"denied, protected name", ExecClass{Kind: ExecDenied, ExitCode: code(1), Violations: []Violation{
			{Reason: ReasonReadOnly, Path: "/home/alice/acme/.envrc", Protection: "protected name .envrc"},
			{Reason: ReasonReadOnly, Path: "/etc/x"}}}, Evidence{},
			Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{
				"read-only-filesystem: /workspace/.envrc", "read-only-filesystem: /etc/x"},
				Protected: []string{"/workspace/.envrc (protected name .envrc)"}, Unprotected: 1}},
		{"runner failure", ExecClass{Kind: ExecRunnerFailure, Stage: "userns", Reason: status.SetupFailed}, Evidence{},
			Outcome{Kind: RunnerFailure, Stage: "userns", Reason: status.SetupFailed}},
		{"timed out", ExecClass{Kind: ExecTimedOut}, Evidence{TimedOut: true},
			Outcome{Kind: TimedOut, Bound: BoundTimeout, Limit: 2}},
		{"wall clock", ExecClass{Kind: ExecTimedOut}, Evidence{Breach: BreachWallClock},
			Outcome{Kind: TimedOut, Bound: BoundWallClock, Limit: 600}},
		{"aborted", ExecClass{Kind: ExecAborted}, Evidence{Aborted: true}, Outcome{Kind: Aborted}},
		{"memory", ExecClass{Kind: ExecOverBudget}, Evidence{Breach: BreachMemory, Usage: Usage{PeakMemoryBytes: 600 << 20}},
			Outcome{Kind: OverBudget, Bound: BoundMemory, Limit: 1 << 29, Observed: 600 << 20}},
		{"processes", ExecClass{Kind: ExecOverBudget}, Evidence{Breach: BreachProcesses, Usage: Usage{PeakProcesses: 65}},
			Outcome{Kind: OverBudget, Bound: BoundProcesses, Limit: 64, Observed: 65}},
		{"cpu", ExecClass{Kind: ExecOverBudget}, Evidence{Breach: BreachCPU, Usage: Usage{CPUMs: 30001}},
			Outcome{Kind: OverBudget, Bound: BoundCPU, Limit: 30, Observed: 31}},
		{"output", ExecClass{Kind: ExecOverBudget}, Evidence{Breach: BreachOutput, OutputSeen: 5 << 20},
			Outcome{Kind: OverBudget, Bound: BoundOutput, Limit: 1 << 20, Observed: 5 << 20}},
		{"unknown kind", ExecClass{Kind: "weird"}, Evidence{}, Outcome{Kind: RunnerFailure, Reason: "unclassified"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FromExec(tt.r, tt.ev, lim, c)); diff != "" {
				t.Errorf("FromExec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEndToEndForgery runs the whole path a forged runner failure takes,
// from evidence to the text the model reads.
func TestEndToEndForgery(t *testing.T) {
	ev := Evidence{ExitCode: code(1), StatusChannel: true, Status: started(),
		Stderr: []byte("bwrap: Creating new namespace failed: Operation not permitted\n")}
	o := FromExec(ClassifyExec(ev, bwrapDialect), ev, ExecLimits{}, Context{})
	text := Narrate(o, Context{})
	if o.Kind == RunnerFailure || strings.Contains(text, "do not rewrite") {
		t.Fatalf("forged runner failure reached the model as one: %s", text)
	}
}

// TestViolationStringsBounded: the model sees at most a few short strings,
// never the whole of stderr.
func TestViolationStringsBounded(t *testing.T) {
	var vs []Violation
	for range MaxViolations {
		vs = append(vs, Violation{Reason: ReasonPolicyDenied, Snippet: strings.Repeat("s", maxSnippet)})
	}
	o := FromExec(ExecClass{Kind: ExecDenied, Violations: vs}, Evidence{}, ExecLimits{}, Context{})
	if len(o.Violations) > maxListed {
		t.Errorf("%d violation strings, want at most %d", len(o.Violations), maxListed)
	}
	for _, v := range o.Violations {
		if len(v) > len(ReasonPolicyDenied)+2+maxFixed {
			t.Errorf("violation string of %d bytes", len(v))
		}
	}
}
