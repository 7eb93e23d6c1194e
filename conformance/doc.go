// Package conformance checks any implementation of ringfence.Sandbox
// against the contract, the same way for every one: ringfence's own
// backends, a container runner, a VM, a hosted sandbox.
//
//	rep := conformance.Run(ctx, func() (ringfence.Sandbox, error) { return mySandbox() }, conformance.Options{})
//	if !rep.Passed { … rep.Failed() … }
//
// or, in a Go test, conformance.RunT(t, create, conformance.Options{}).
// `ringfence conformance` runs it on ringfence's own backends.
//
// # What it checks
//
// Every check runs on a fresh sandbox from create, closed twice afterwards
// (Close must be safe twice). Names are stable (Names lists them):
//
//   - exec/*: exit codes; stdout and stderr kept apart; stdin delivered and
//     no stdin being empty input; only the variables given are visible (a
//     canary planted in the host's environment must not appear); a command
//     past its timeout is reported as timed out with no exit code, and its
//     background descendants — one in its own session — are stopped with it.
//   - sandbox/close-twice: Close after use, twice, returns no error (every
//     check's sandbox is closed twice; a panic anywhere fails the check).
//   - files/*: commands run where the files are (in the root and in a
//     working directory beneath it), files round-trip both ways, a read over
//     its bound is refused rather than cut, a missing file is an error.
//   - paths/*: every refusal reason of package pathrule (empty, dot,
//     absolute, drive, home, backslash, nul, escape) is refused by ReadFile
//     and WriteFile with an error wrapping pathrule.ErrPathRefused; so is a
//     working directory outside the workspace; links and hard links a
//     command plants pointing outside do not lead the file methods out.
//   - isolation/*: the claims of Isolation(), observed from the host.
//     Filesystem: host files outside the workspace stay unchanged — written
//     to directly, through a symlink, a hard link, `..`, /proc/*/root.
//     Network: listeners the check starts on the host (loopback TCP and
//     UDP, a unix socket by path, an abstract unix socket) receive nothing.
//     Processes: a sleeper started on the host is neither seen in /proc nor
//     killed or stopped, and a double-forked setsid daemon does not outlive
//     its command. A claim the sandbox does not make is reported as passed
//     with "not claimed": a sandbox passes by claiming nothing it lacks, and
//     fails by claiming what it cannot hold — reaching the loopback
//     listener while claiming network isolation is a failure.
//   - sessions/*: for a sandbox with long-lived sessions (Sessioner:
//     ringfence.Local on the linux backend; any other passes them "not
//     claimed"). background-survives: a heartbeat started in one call keeps
//     moving after it (read from the host), and the next call of the session
//     reads the first's /tmp file. isolated: a second session of the same
//     sandbox looks for the first's process and /tmp file, then kills every
//     process it can name; the first's heartbeat must keep moving.
//     teardown: after Close, the heartbeats of a background process and of
//     a double-forked setsid daemon stop, and no host process carries their
//     marker.
//
// # How it judges
//
// From outside, by effect: a host file's bytes, a listener's accepted
// connections, a sleeper's liveness, a descendant's heartbeat file that must
// stop moving once Exec has returned. Attack scripts must run to their end
// (a command that never ran proves nothing, and fails the check). What a
// command prints is used only to tell "refused" from "the probe could not
// run"; a check whose probe cannot run inside the sandbox (the network
// probes need node or python3 there) is reported as skipped, not passed.
//
// The suite needs a POSIX shell and the usual tools (sh, cat, env, ln, tr,
// sleep, kill, setsid where present) inside the sandbox.
//
// # What it cannot prove
//
// It observes claims from outside, with the attacks it knows. A sandbox can
// pass and still have holes the checks do not try: other syscalls, other
// paths to the same file, races, kernel bugs, side channels, resource
// exhaustion, reads of host files (the interface says nothing about which
// host files a sandbox hides, so only writes are judged). Passing means
// "these attempts failed here, today", not "secure". The descendant checks
// watch a heartbeat for 700 ms after Exec returns: a survivor that stays
// quiet longer would go unseen.
//
// Checks change the process environment briefly (the canary) and create
// host temp directories named conformance-host-*, removed afterwards.
package conformance
