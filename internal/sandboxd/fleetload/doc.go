// Package fleetload is the fleet load run of `ringfence serve` (issue 17):
// it starts N real server processes (a ringfence binary, each with its own
// root, HOME and TMPDIR) on loopback, drives C concurrent clients against
// each for a duration with a mix of calls — Execute (stdout, stderr and
// exit code checked exactly), Start with stdin (random bytes streamed in,
// the echo and the exit checked), REST PUT then GET (bytes checked), an
// Execute that hashes the uploaded file (the command sees what the REST
// API wrote), a directory listing and DELETE then a 404 — and reports
// p50/p99 per call beside a same-run ringfence.Local Exec.
//
// Every result is verified; a mismatch is an error. After the run (clients
// gone, connections closed) and again after each server's shutdown it
// checks that nothing leaked on the servers:
//
//   - processes: the server's descendants (pid and start time) return to
//     their count after warm-up; after shutdown none of them is alive and
//     no orphan reparented to the driver (a child subreaper while it runs);
//   - mounts: no new mount point under the server's own directories (its
//     root, HOME, TMPDIR, the directories it holds) in its mountinfo after
//     the run, none in the host's after shutdown; its mountinfo count back
//     to its baseline when it has a mount namespace of its own (in the
//     host's, other processes on the machine move the count: a leak by
//     the server would be under its directories);
//   - descriptors: /proc/PID/fd back to its count after warm-up, plus
//     FDSlack (zero by default: the baseline is taken after a warm-up that
//     touched every call, so the runtime's lazily opened descriptors are in
//     it);
//   - temp dirs: every directory the server held open (its private /tmp,
//     its home layer's work dir) gone after shutdown, its TMPDIR empty, and
//     the root holding only what the clients left on purpose (nothing: a
//     PUT's temp file would show here).
//
// bench/fleet (a main) and bench/fleet.sh run it for minutes;
// cmd/ringfence's TestServeFleetMixedLoad runs a bounded version in CI.
//
// Decide apart from apply: the /proc parsers and the leak comparison are
// pure (procfs.go, leaks.go: table-tested, the parsers fuzzed); only the
// _linux.go files read /proc and start processes.
//
// Gaps: the servers' own goroutines are not counted (a separate process:
// no pprof endpoint is served); a process the server leaked and that
// escaped both its tree and the subreaper (impossible from inside a pid
// namespace, possible for a bug in the server's own helpers that
// double-forks and setsid()s into another subreaper) would not be seen.
// Figures on a shared machine move with its load: compare within a run.
package fleetload
