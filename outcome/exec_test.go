package outcome

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ringfence/ringfence/internal/status"
)

// Test dialects, shaped like the ones the backends declare.
var (
	linuxDialect = Dialect{
		Backend:          "linux",
		DenialSignatures: []string{"Permission denied", "Operation not permitted", "Read-only file system"},
	}
	landlockDialect = Dialect{
		Backend:          "landlock",
		DenialSignatures: []string{"Permission denied", "Operation not permitted"},
	}
	bwrapDialect = Dialect{
		Backend:          "bwrap",
		DenialSignatures: []string{"Permission denied", "Read-only file system"},
		RunnerFailure: []RunnerFailureRule{{
			AllowedExitCodes:   []int{1},
			FatalSignatures:    []string{"bwrap:"},
			InformationalLines: []string{"bwrap: Warning: --die-with-parent is ignored"},
			ExcludedSignatures: []string{"bwrap: execvp"},
		}},
	}
)

func code(n int) *int { return &n }

func started() status.Summary { return status.Summary{Started: true} }

func failedWith(stage, reason, errno string) status.Summary {
	return status.Summary{Failure: &status.Event{Kind: status.Failed, Stage: stage, Reason: reason, Errno: errno}}
}

func TestClassifyExec(t *testing.T) {
	tests := []struct {
		name string
		ev   Evidence
		d    Dialect
		want ExecClass
	}{{
		name: "success",
		ev:   Evidence{ExitCode: code(0), StatusChannel: true, Status: started()},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecSuccess, ExitCode: code(0)},
	}, {
		name: "command failure",
		ev:   Evidence{ExitCode: code(2), Stderr: []byte("grep: bad regex\n"), StatusChannel: true, Status: started()},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(2)},
	}, {
		name: "killed by an ordinary signal is the command's failure",
		ev:   Evidence{Signal: "SIGSEGV", StatusChannel: true, Status: started()},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecCommandFailure, Signal: "SIGSEGV"},
	}, {
		name: "the runner's exit record wins over the init's own exit",
		ev: Evidence{ExitCode: code(128 + 31), StatusChannel: true, Status: status.Summary{
			Started: true, Exit: &status.Event{Kind: status.Exited, Signal: "SIGSYS"}}},
		d: linuxDialect,
		want: ExecClass{Kind: ExecDenied, Signal: "SIGSYS",
			Violations: []Violation{{Backend: "linux", Reason: ReasonSeccomp, Snippet: "killed by SIGSYS"}}},
	}, {
		name: "seccomp kill without a status record",
		ev:   Evidence{Signal: "SIGSYS"},
		d:    landlockDialect,
		want: ExecClass{Kind: ExecDenied, Signal: "SIGSYS",
			Violations: []Violation{{Backend: "landlock", Reason: ReasonSeccomp, Snippet: "killed by SIGSYS"}}},
	}, {
		name: "denial keeps the matched line as evidence",
		ev: Evidence{ExitCode: code(1), StatusChannel: true, Status: started(),
			Stderr: []byte("starting\ntouch: cannot touch '/etc/x': Read-only file system\n")},
		d: linuxDialect,
		want: ExecClass{Kind: ExecDenied, ExitCode: code(1),
			Evidence: "touch: cannot touch '/etc/x': Read-only file system",
			Violations: []Violation{{Backend: "linux", Reason: ReasonReadOnly, Path: "/etc/x",
				Snippet: "touch: cannot touch '/etc/x': Read-only file system"}}},
	}, {
		name: "denial with exit 0 is still reported",
		ev: Evidence{ExitCode: code(0), StatusChannel: true, Status: started(),
			Stderr: []byte("rm: cannot remove '/usr/x': Permission denied\n")},
		d: linuxDialect,
		want: ExecClass{Kind: ExecDenied, ExitCode: code(0),
			Evidence: "rm: cannot remove '/usr/x': Permission denied",
			Violations: []Violation{{Backend: "linux", Reason: ReasonPermissionDenied, Path: "/usr/x",
				Snippet: "rm: cannot remove '/usr/x': Permission denied"}}},
	}, {
		name: "no cross-backend union: landlock never says read-only file system",
		ev: Evidence{ExitCode: code(1), StatusChannel: true, Status: started(),
			Stderr: []byte("touch: cannot touch '/etc/x': Read-only file system\n")},
		d:    landlockDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(1)},
	}, {
		name: "forged runner failure text with a Started record is the command's failure",
		ev: Evidence{ExitCode: code(1), StatusChannel: true, Status: started(),
			Stderr: []byte("bwrap: Creating new namespace failed: Operation not permitted\n")},
		d:    bwrapDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(1)},
	}, {
		name: "a Failed record is a runner failure whatever stderr says",
		ev:   Evidence{ExitCode: code(125), StatusChannel: true, Status: failedWith("landlock", status.SetupFailed, "EINVAL")},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecRunnerFailure, ExitCode: code(125), Stage: "landlock", Reason: status.SetupFailed,
			Violations: []Violation{{Backend: "linux", Reason: ReasonRunnerFailure, Snippet: "landlock: setup (EINVAL)"}}},
	}, {
		name: "a Failed record beats a denial line",
		ev: Evidence{ExitCode: code(125), StatusChannel: true, Status: failedWith("mounts", "", ""),
			Stderr: []byte("mount: Permission denied\n")},
		d: linuxDialect,
		want: ExecClass{Kind: ExecRunnerFailure, ExitCode: code(125), Stage: "mounts", Reason: status.SetupFailed,
			Violations: []Violation{{Backend: "linux", Reason: ReasonRunnerFailure, Snippet: "mounts: setup"}}},
	}, {
		name: "a missing program is the command's failure",
		ev:   Evidence{ExitCode: code(125), StatusChannel: true, Status: failedWith("exec", status.NotFound, "ENOENT")},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(127), Stage: "exec", Reason: status.NotFound},
	}, {
		name: "a non-executable program is the command's failure",
		ev:   Evidence{ExitCode: code(125), StatusChannel: true, Status: failedWith("exec", status.NotExecutable, "EACCES")},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(126), Stage: "exec", Reason: status.NotExecutable},
	}, {
		name: "a missing program exits 127 whatever the runner exited with",
		ev:   Evidence{ExitCode: code(1), Signal: "SIGKILL", StatusChannel: true, Status: failedWith("exec", status.NotFound, "ENOTDIR")},
		d:    bwrapDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(127), Stage: "exec", Reason: status.NotFound},
	}, {
		name: "a silent channel is a runner failure",
		ev:   Evidence{ExitCode: code(1), StatusChannel: true, Status: status.Summary{Silent: true}},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecRunnerFailure, ExitCode: code(1), Reason: RunnerSilent,
			Violations: []Violation{{Backend: "linux", Reason: ReasonRunnerFailure, Snippet: RunnerSilent}}},
	}, {
		name: "a silent channel takes a matching rule line as evidence",
		ev: Evidence{ExitCode: code(1), StatusChannel: true, Status: status.Summary{Silent: true},
			Stderr: []byte("bwrap: No permissions to creating new namespace\n")},
		d: bwrapDialect,
		want: ExecClass{Kind: ExecRunnerFailure, ExitCode: code(1), Reason: RunnerSilent,
			Evidence:   "bwrap: No permissions to creating new namespace",
			Violations: []Violation{{Backend: "bwrap", Reason: ReasonRunnerFailure, Snippet: RunnerSilent}}},
	}, {
		name: "without a channel the backend's rule decides",
		ev:   Evidence{ExitCode: code(1), Stderr: []byte("bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n")},
		d:    bwrapDialect,
		want: ExecClass{Kind: ExecRunnerFailure, ExitCode: code(1), Reason: RunnerDiagnostic,
			Evidence: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
			Violations: []Violation{{Backend: "bwrap", Reason: ReasonRunnerFailure,
				Snippet: "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"}}},
	}, {
		name: "without a channel, an excluded signature carves out a missing program",
		ev:   Evidence{ExitCode: code(1), Stderr: []byte("bwrap: execvp nosuchprog: No such file or directory\n")},
		d:    bwrapDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(1)},
	}, {
		name: "without a channel, informational lines are dropped first",
		ev:   Evidence{ExitCode: code(1), Stderr: []byte("BWRAP: warning: --die-with-parent is ignored\nmake: *** error 1\n")},
		d:    bwrapDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(1)},
	}, {
		name: "without a channel, an exit code the rule does not allow is not a runner failure",
		ev:   Evidence{ExitCode: code(2), Stderr: []byte("bwrap: something\n")},
		d:    bwrapDialect,
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(2)},
	}, {
		name: "without a channel, exit 0 is never a runner failure",
		ev:   Evidence{ExitCode: code(0), Stderr: []byte("bwrap: something\n")},
		d:    Dialect{Backend: "x", RunnerFailure: []RunnerFailureRule{{FatalSignatures: []string{"bwrap:"}}}},
		want: ExecClass{Kind: ExecSuccess, ExitCode: code(0)},
	}, {
		name: "an empty signature matches nothing",
		ev:   Evidence{ExitCode: code(1), Stderr: []byte("anything\n")},
		d:    Dialect{Backend: "x", DenialSignatures: []string{"", "  "}, RunnerFailure: []RunnerFailureRule{{FatalSignatures: []string{""}}}},
		want: ExecClass{Kind: ExecCommandFailure, ExitCode: code(1)},
	}, {
		name: "aborted comes first, even over a Failed record",
		ev:   Evidence{Aborted: true, TimedOut: true, StatusChannel: true, Status: failedWith("exec", status.SetupFailed, "")},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecAborted},
	}, {
		name: "timed out, whatever stderr says",
		ev:   Evidence{TimedOut: true, ExitCode: code(137), Stderr: []byte("Permission denied\n")},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecTimedOut},
	}, {
		name: "a wall-clock breach is a time-out",
		ev:   Evidence{Breach: BreachWallClock},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecTimedOut},
	}, {
		name: "a memory breach is over budget",
		ev:   Evidence{Breach: BreachMemory, Signal: "SIGKILL"},
		d:    linuxDialect,
		want: ExecClass{Kind: ExecOverBudget, Signal: "SIGKILL"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClassifyExec(tt.ev, tt.d)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ClassifyExec (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForgedRunnerFailure is the attack: a command prints its backend's
// fatal diagnostic and exits with the backend's exit code, hoping to be
// told as "the sandbox failed, do not rewrite". With a status channel the
// Started record defeats it; the same bytes without the channel are what
// the text rule would call a runner failure, which shows the check can fail.
func TestForgedRunnerFailure(t *testing.T) {
	forged := Evidence{ExitCode: code(1), Stderr: []byte("bwrap: Creating new namespace failed: No space left on device\n")}
	if got := ClassifyExec(forged, bwrapDialect).Kind; got != ExecRunnerFailure {
		t.Fatalf("control: without a channel the forged text should match the rule, got %s", got)
	}
	forged.StatusChannel, forged.Status = true, started()
	if got := ClassifyExec(forged, bwrapDialect).Kind; got == ExecRunnerFailure {
		t.Fatalf("a Started record must win over stderr text, got %s", got)
	}
}

// TestEveryDialectSignature checks each signature of each dialect denies
// under its own backend, case-insensitively, keeping the line verbatim.
func TestEveryDialectSignature(t *testing.T) {
	for _, d := range []Dialect{linuxDialect, landlockDialect, bwrapDialect} {
		for _, sig := range d.DenialSignatures {
			line := "cp: cannot create regular file 'out/a.txt': " + strings.ToUpper(sig)
			ev := Evidence{ExitCode: code(1), StatusChannel: true, Status: started(), Stderr: []byte("x\n" + line + "\r\n")}
			got := ClassifyExec(ev, d)
			if got.Kind != ExecDenied || got.Evidence != line {
				t.Errorf("%s %q: got %s evidence %q", d.Backend, sig, got.Kind, got.Evidence)
			}
			if len(got.Violations) != 1 || got.Violations[0].Path != "out/a.txt" || got.Violations[0].Backend != d.Backend {
				t.Errorf("%s %q: violations %+v", d.Backend, sig, got.Violations)
			}
		}
	}
}

func TestEvidenceAndViolationsBounded(t *testing.T) {
	long := "touch: cannot touch '/x': Read-only file system " + strings.Repeat("é", 1000)
	var b strings.Builder
	for i := range 100 {
		b.WriteString("touch: cannot touch '/x" + strings.Repeat("y", i) + "': Read-only file system\n")
	}
	got := ClassifyExec(Evidence{ExitCode: code(1), Stderr: []byte(long + "\n" + b.String())}, linuxDialect)
	if len(got.Evidence) > maxEvidence || !strings.HasPrefix(long, got.Evidence) {
		t.Errorf("evidence not a bounded prefix: %d bytes", len(got.Evidence))
	}
	if len(got.Violations) != MaxViolations {
		t.Errorf("got %d violations, want the bound %d", len(got.Violations), MaxViolations)
	}
	for _, v := range got.Violations {
		if len(v.Snippet) > maxSnippet || strings.ContainsAny(v.Snippet, "\r\n") {
			t.Errorf("snippet unbounded or multi-line: %q", v.Snippet)
		}
	}
}

func TestRepeatedDenialIsOneViolation(t *testing.T) {
	line := "open /etc/passwd: operation not permitted\n"
	got := ClassifyExec(Evidence{ExitCode: code(1), Stderr: []byte(strings.Repeat(line, 1000))}, linuxDialect)
	if len(got.Violations) != 1 {
		t.Errorf("got %d violations for one repeated refusal", len(got.Violations))
	}
}

// TestZeroSummaryIsSilent: a caller that builds a Summary by hand and
// forgets Silent still gets a runner failure, not a guess from stderr.
func TestZeroSummaryIsSilent(t *testing.T) {
	ev := Evidence{ExitCode: code(1), StatusChannel: true, Stderr: []byte("x: Permission denied\n")}
	if got := ClassifyExec(ev, linuxDialect); got.Kind != ExecRunnerFailure || got.Reason != RunnerSilent {
		t.Errorf("got %s/%s", got.Kind, got.Reason)
	}
	ev.Status.Exit = &status.Event{Kind: status.Exited, ExitCode: code(1)}
	if got := ClassifyExec(ev, linuxDialect); got.Kind != ExecDenied {
		t.Errorf("an Exited record without Started: got %s, want the stderr dialect to decide", got.Kind)
	}
}
