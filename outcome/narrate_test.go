package outcome

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the narration golden files")

const hostRoot = "/home/alice/acme"

var goldenContext = Context{
	MountPath:  "/workspace",
	WriteRoots: []string{"/workspace", "/tmp"},
	Mode:       "workspace-write",
	HostRoot:   hostRoot,
}

type narrationCase struct {
	name string
	o    Outcome
}

// caseContext overrides goldenContext for the cases named kind/name.
var caseContext = map[string]*Context{
	"denied-by-policy/write nothing writable": readOnlyContext,
	"outside-write-root/nothing writable":     readOnlyContext,
	"sandbox-violation/read-only mode":        readOnlyContext,
	"sandbox-violation/private tmp":           privateTmpContext,
	"outside-write-root/private tmp":          privateTmpContext,
	"ok/command private tmp":                  privateTmpContext,
}

// privateTmpContext is a backend whose /tmp is private scratch.
var privateTmpContext = &Context{MountPath: "/workspace", WriteRoots: []string{"/workspace", "/tmp"},
	Mode: "workspace-write", HostRoot: hostRoot, PrivateTmp: true}

// readOnlyContext has nothing writable.
var readOnlyContext = &Context{MountPath: "/workspace", Mode: "read-only", HostRoot: hostRoot}

// narrationCases covers every kind, and every branch a kind's narrator has.
var narrationCases = map[Kind][]narrationCase{
	OK: {
		{"command", Outcome{Kind: OK, ExitCode: code(0)}},
		{"command private tmp", Outcome{Kind: OK, ExitCode: code(0)}},
		{"file", Outcome{Kind: OK, Path: "/workspace/src/a.go"}},
		{"bare", Outcome{Kind: OK}},
	},
	NotFound: {
		{"path", Outcome{Kind: NotFound, Path: "/workspace/src/missing.go"}},
		{"program named", Outcome{Kind: NotFound, Program: "pyhton3"}},
		{"program unnamed", Outcome{Kind: NotFound}},
	},
	DeniedByPolicy: {
		{"read", Outcome{Kind: DeniedByPolicy, Axis: "read", Path: "/workspace/.env"}},
		{"write", Outcome{Kind: DeniedByPolicy, Axis: "write", Path: "/workspace/.git/config"}},
		{"write nothing writable", Outcome{Kind: DeniedByPolicy, Axis: "write", Path: "/workspace/a"}},
		{"exec", Outcome{Kind: DeniedByPolicy, Axis: AxisExec, Program: "curl", Detail: "network"}},
		{"exec no detail", Outcome{Kind: DeniedByPolicy, Axis: AxisExec, Program: "rm"}},
		{"exec hostile program", Outcome{Kind: DeniedByPolicy, Axis: AxisExec, Program: "a\"b\n" + strings.Repeat("x", 300)}},
	},
	GateDeclined: {
		{"with note", Outcome{Kind: GateDeclined, Note: "not on a Friday"}},
		{"no note", Outcome{Kind: GateDeclined}},
	},
	GateUnavailable: {
		{"timeout", Outcome{Kind: GateUnavailable, Reason: "timeout"}},
		{"error", Outcome{Kind: GateUnavailable, Reason: "error"}},
		{"no gate", Outcome{Kind: GateUnavailable, Reason: ReasonNoGate}},
		{"no approver", Outcome{Kind: GateUnavailable, Reason: ReasonNoApprover}},
	},
	OverBudget: {
		{"read", Outcome{Kind: OverBudget, Bound: "max_bytes", Limit: 65536, Observed: 1048576, Path: "/workspace/big.log"}},
		{"read no path", Outcome{Kind: OverBudget, Bound: "maxTerminalPayloadBytes", Limit: 4096}},
		{"memory", Outcome{Kind: OverBudget, Bound: BoundMemory, Limit: 536870912, Observed: 540000000}},
		{"processes", Outcome{Kind: OverBudget, Bound: BoundProcesses, Limit: 256, Observed: 256}},
		{"cpu", Outcome{Kind: OverBudget, Bound: BoundCPU, Limit: 30}},
		{"output", Outcome{Kind: OverBudget, Bound: BoundOutput, Limit: 1048576, Observed: 2097152}},
	},
	ScopeLimited: {
		{"depth", Outcome{Kind: ScopeLimited, Bound: "maxDepth", Limit: 8, Shown: 500, Path: "/workspace/node_modules"}},
		{"entries", Outcome{Kind: ScopeLimited, Bound: "max_entries", Limit: 1000, Shown: 1000}},
	},
	NotARegularFile: {
		{"symlink", Outcome{Kind: NotARegularFile, Path: "/workspace/link", FileType: "symlink"}},
		{"socket", Outcome{Kind: NotARegularFile, Path: "/workspace/run.sock", FileType: "socket"}},
		{"unknown type", Outcome{Kind: NotARegularFile, Path: "/workspace/x"}},
	},
	IsADirectory:  {{"dir", Outcome{Kind: IsADirectory, Path: "/workspace/src"}}},
	NotADirectory: {{"file", Outcome{Kind: NotADirectory, Path: "/workspace/go.mod"}}},
	PathRejected: {
		{"escape", Outcome{Kind: PathRejected, Path: "../../etc/passwd", Reason: "escape"}},
		{"absolute", Outcome{Kind: PathRejected, Path: "/etc/passwd", Reason: "absolute"}},
		{"nul", Outcome{Kind: PathRejected, Path: "a\x00b", Reason: "nul"}},
		{"home", Outcome{Kind: PathRejected, Path: "~/.ssh/id_rsa", Reason: "home"}},
		{"unknown reason", Outcome{Kind: PathRejected, Path: "x", Reason: "unc"}},
	},
	OutsideWriteRoot: {
		{"with roots", Outcome{Kind: OutsideWriteRoot, Path: "/workspace/../x"}},
		{"outcome roots", Outcome{Kind: OutsideWriteRoot, Path: "/etc/x", WriteRoots: []string{"/workspace/out"}}},
		{"nothing writable", Outcome{Kind: OutsideWriteRoot, Path: "/workspace/a"}},
		{"private tmp", Outcome{Kind: OutsideWriteRoot, Path: "/etc/x"}},
	},
	SandboxViolation: {
		{"exit 1", Outcome{Kind: SandboxViolation, ExitCode: code(1),
			Violations: []string{"read-only-filesystem: /etc/x", "permission-denied: /usr/lib/y"}}},
		{"exit 0", Outcome{Kind: SandboxViolation, ExitCode: code(0), Violations: []string{"permission-denied: /root/.cache"}}},
		{"private tmp", Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{"read-only-filesystem: /etc/x"}}},
		{"read-only mode", Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{"read-only-filesystem: /workspace/a"}}},
		{"protected name", Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{"read-only-filesystem: /workspace/src/.envrc"},
			Protected: []string{"/workspace/src/.envrc (protected name .envrc)"}}},
		{"protected and outside", Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{
			"read-only-filesystem: /workspace/.git/hooks/pre-commit", "read-only-filesystem: /etc/x"},
			Protected: []string{"/workspace/.git/hooks/pre-commit (git hooks directory)"}, Unprotected: 1}},
		{"seccomp", Outcome{Kind: SandboxViolation, Signal: "SIGSYS", Violations: []string{"seccomp: killed by SIGSYS"}}},
		{"network deny", Outcome{Kind: SandboxViolation, ExitCode: code(6), Network: NetworkDeny,
			Violations: []string{"network-denied: example.com"}}},
		{"network loopback", Outcome{Kind: SandboxViolation, ExitCode: code(1), Network: NetworkLoopback,
			Violations: []string{"network-denied: 1.1.1.1:80", "network-denied"}}},
		{"network and files", Outcome{Kind: SandboxViolation, ExitCode: code(1), Network: NetworkDeny,
			Violations: []string{"network-denied: registry.npmjs.org", "read-only-filesystem: /usr/lib/node_modules"}}},
		{"many", Outcome{Kind: SandboxViolation, ExitCode: code(2), Violations: []string{
			"a: /1", "a: /2", "a: /3", "a: /4", "a: /5", "a: /6", "a: /7", "a: /8", "a: /9", "a: /10"}}},
	},
	NonzeroExit: {
		{"code", Outcome{Kind: NonzeroExit, ExitCode: code(2)}},
		{"signal", Outcome{Kind: NonzeroExit, Signal: "SIGSEGV"}},
		{"not executable", Outcome{Kind: NonzeroExit, ExitCode: code(126), Detail: detailNotExecutable}},
		{"bare", Outcome{Kind: NonzeroExit}},
	},
	NoMatches: {
		{"scoped", Outcome{Kind: NoMatches, Pattern: "func Foo\\(", Scope: "/workspace/src"}},
		{"unscoped", Outcome{Kind: NoMatches, Pattern: "*.rs"}},
	},
	UnknownMedia:   {{"file", Outcome{Kind: UnknownMedia, Path: "/workspace/a.bin"}}},
	InvalidPattern: {{"regex", Outcome{Kind: InvalidPattern, Pattern: "a(b", Detail: "missing closing )"}}},
	IOFailure: {
		{"path", Outcome{Kind: IOFailure, Path: "/workspace/a", Detail: "no space left on device"}},
		{"no path", Outcome{Kind: IOFailure}},
	},
	Aborted: {{"bare", Outcome{Kind: Aborted}}},
	TimedOut: {
		{"timeout", Outcome{Kind: TimedOut, Bound: BoundTimeout, Limit: 30}},
		{"wall clock", Outcome{Kind: TimedOut, Bound: BoundWallClock, Limit: 600}},
		{"unknown bound", Outcome{Kind: TimedOut}},
	},
	RunnerFailure: {
		{"stage", Outcome{Kind: RunnerFailure, Stage: "landlock", Reason: "setup"}},
		{"silent", Outcome{Kind: RunnerFailure, Reason: RunnerSilent}},
		{"bare", Outcome{Kind: RunnerFailure}},
	},
	InvalidArguments: {{"detail", Outcome{Kind: InvalidArguments, Detail: "timeout_seconds must be positive"}}},
	Unavailable: {
		{"detail", Outcome{Kind: Unavailable, Detail: "user namespaces are disabled and bwrap is not installed"}},
		{"bare", Outcome{Kind: Unavailable}},
	},
	MissingProgram: {
		{"named", Outcome{Kind: MissingProgram, Program: "python3"}},
		{"unnamed", Outcome{Kind: MissingProgram}},
	},
}

func TestNarrationGolden(t *testing.T) {
	used := 0
	defer func() {
		if used != len(caseContext) {
			t.Errorf("%d of %d context overrides name no case", len(caseContext)-used, len(caseContext))
		}
	}()
	for _, k := range Kinds() {
		cases, ok := narrationCases[k]
		if !ok {
			t.Errorf("kind %s has no narration cases", k)
			continue
		}
		var b strings.Builder
		for _, c := range cases {
			if c.o.Kind != k {
				t.Errorf("%s/%s: case has kind %s", k, c.name, c.o.Kind)
			}
			ctx := goldenContext
			if o := caseContext[string(k)+"/"+c.name]; o != nil {
				ctx = *o
				used++
			}
			b.WriteString("--- " + c.name + "\n" + Narrate(c.o, ctx) + "\n")
		}
		checkGolden(t, filepath.Join("testdata", "narration", string(k)+".golden"), b.String())
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v (run go test -update to create it)", path, err)
		return
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update after review):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// TestNoStrayGoldens keeps testdata honest: a golden for a kind that no
// longer exists is an error, not a file to ignore.
func TestNoStrayGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "narration", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, k := range Kinds() {
		known[string(k)+".golden"] = true
		if narrators[k] == nil {
			t.Errorf("kind %s has no narrator", k)
		}
	}
	for _, f := range files {
		if !known[filepath.Base(f)] {
			t.Errorf("stray golden %s", f)
		}
	}
	if len(narrators) != len(Kinds()) {
		t.Errorf("%d narrators for %d kinds", len(narrators), len(Kinds()))
	}
}
