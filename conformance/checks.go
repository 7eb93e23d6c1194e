package conformance

import (
	"slices"

	"github.com/ringfence/ringfence"
)

// check is one named check. claim, when set, names the isolation claim the
// check observes: a sandbox that does not make it passes with "not
// claimed" and the check does not run.
type check struct {
	name   string
	claim  func(ringfence.Isolation) bool
	escape bool // an escape attempt, selectable with Options.Escapes
	run    func(*env) error
}

func claimsFiles(i ringfence.Isolation) bool     { return i.Filesystem }
func claimsNetwork(i ringfence.Isolation) bool   { return i.Network }
func claimsProcesses(i ringfence.Isolation) bool { return i.Processes }

// allChecks is every check in report order.
func allChecks() []check {
	list := []check{
		{name: "sandbox/close-twice", run: checkCloseTwice},
		{name: "exec/exit-code", run: checkExitCode},
		{name: "exec/not-runnable", run: checkNotRunnable},
		{name: "exec/stdout-stderr", run: checkStdoutStderr},
		{name: "exec/stdin", run: checkStdin},
		{name: "exec/env-only-given", run: checkEnvOnlyGiven},
		{name: "exec/timeout-stops-tree", run: checkTimeoutStopsTree},
		{name: "files/round-trip", run: checkRoundTrip},
		{name: "files/cwd-is-workspace", run: checkCwdIsWorkspace},
		{name: "files/read-bound", run: checkReadBound},
		{name: "files/missing", run: checkMissing},
	}
	list = append(list, pathChecks()...)
	list = append(list,
		check{name: "paths/refuse-exec-dir", run: checkRefuseExecDir},
		check{name: "paths/symlink-out", run: checkFileAPISymlinkOut},
		check{name: "paths/hardlink-out", run: checkFileAPIHardlinkOut},
		check{name: "isolation/filesystem/write-outside", claim: claimsFiles, run: checkWriteOutside},
		check{name: "isolation/filesystem/symlink-escape", claim: claimsFiles, escape: true, run: checkSymlinkEscape},
		check{name: "isolation/filesystem/hardlink-escape", claim: claimsFiles, escape: true, run: checkHardlinkEscape},
		check{name: "isolation/filesystem/dotdot-escape", claim: claimsFiles, escape: true, run: checkDotdotEscape},
		check{name: "isolation/filesystem/proc-root-escape", claim: claimsFiles, escape: true, run: checkProcRootEscape},
		check{name: "isolation/network/tcp-loopback", claim: claimsNetwork, run: checkTCPLoopback},
		check{name: "isolation/network/udp-loopback", claim: claimsNetwork, run: checkUDPLoopback},
		check{name: "isolation/network/unix-socket", claim: claimsNetwork, escape: true, run: checkUnixSocket},
		check{name: "isolation/network/abstract-socket", claim: claimsNetwork, escape: true, run: checkAbstractSocket},
		check{name: "isolation/processes/see-host", claim: claimsProcesses, run: checkSeeHost},
		check{name: "isolation/processes/signal-host", claim: claimsProcesses, run: checkSignalHost},
		check{name: "isolation/processes/daemon-outlives", claim: claimsProcesses, escape: true, run: checkDaemonOutlives},
		// Sessions (a Sandbox that is a Sessioner): not claimed otherwise.
		check{name: "sessions/background-survives", run: checkSessionBackground},
		check{name: "sessions/isolated", run: checkSessionIsolation},
		check{name: "sessions/teardown", run: checkSessionTeardown},
	)
	return list
}

// selected is allChecks less the escape checks opts leaves out.
func selected(opts Options) []check {
	var out []check
	for _, c := range allChecks() {
		if c.escape && opts.Escapes != nil && !slices.Contains(opts.Escapes, c.name) {
			continue
		}
		out = append(out, c)
	}
	return out
}
