// Package process implements process.v1.ProcessService (agent-sandbox's
// standard process API: Start, Execute, WriteStdin, SendSignal,
// ResizeTTY) over one ringfence session.
//
// Every process is started by the session's already-confined init
// (ringfence.Session), so it is confined exactly as a one-shot Exec under
// the deployment's policy — the host read-only or denied, writes only
// under the root, protected paths refused at any depth, its own network
// namespace, the server's environment never passed — and the processes
// share one view, one private /tmp and one loopback, as processes in one
// pod would. A session that ended (a memory or process limit breached
// stops it whole) is replaced by a new one at the next call.
//
// The wire contract is the standard's (spec/process/v1, checked by its
// descriptor tests); ringfence's outcome — kind, exit code or signal,
// violations, narration, the model-facing outcome, backend and
// enforcement, Execute's cut output —
// travels only as gRPC trailing metadata (package wire: the names and the
// JSON, shared with the client), which a standard client ignores. exit_code is the command's own, or -1
// when a signal, a timeout or the session's end stopped it (as the
// reference daemon reports a signalled child).
//
// Status codes, as the standard says: INVALID_ARGUMENT for a missing
// command, a NUL, a malformed env name or an unspecified signal;
// PERMISSION_DENIED for a cwd outside the root (lexically — "..", an
// absolute path not under the root or /workspace — or through a link)
// and for a program that may not be executed; NOT_FOUND for an unknown or
// ended process id, a missing program or cwd; FAILED_PRECONDITION for
// ResizeTTY without a terminal; RESOURCE_EXHAUSTED past MaxProcesses;
// UNAVAILABLE while shutting down.
//
// Threat model: the API's caller may be hostile. Process ids are the
// server's own counters, never host pids, and name only processes of this
// server; a cwd is checked before the command starts (the command itself
// chdirs inside its sandbox, where a cwd elsewhere would give it nothing
// a `cd` would not). A client that goes away takes its process with it
// (SIGKILL to its group). Output reaches a slow client with flow control
// (the process blocks on its pipe), never unbounded memory; Execute keeps
// at most MaxExecuteOutput bytes of each stream (gRPC's default 4 MiB
// message bound) and says how many it saw. WriteStdin keeps one write per
// process in flight: a call whose deadline ends while the process does
// not read returns, and the next waits for that write, so short-deadline
// calls cannot pile up chunks in the server, and input arrives in call
// order (never interleaved). Terminals are opened inside
// the sandbox's own devpts by the init (initproc), so `tty` names
// /dev/pts/N there and no host terminal is involved.
//
// On the landlock backend (pods whose seccomp profile refuses namespaces)
// the session is one-shot runs (ringfence.Session, Shared false): every
// call works as above, but processes share no /tmp or loopback (only the
// sandbox's TMPDIR), and the outcome's enforcement reasons say so; the
// bwrap backend has no sessions and New refuses it.
//
// Gaps: Processes share the session's memory and process
// budget; output a background child writes after
// its starter's ExitEvent is dropped; a signalled process's exit_code is
// -1, not 128+N.
package process
