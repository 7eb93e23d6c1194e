// Package ringfence confines the commands, code and file operations of AI
// agents.
//
// An agent asks to run `pytest`, read a file, write a patch. ringfence
// resolves what that call may touch (package policy), reads a command for
// what it does (package execpolicy), confines it with the kernel's own
// mechanisms — user, mount, pid, net, ipc and uts namespaces, Landlock,
// seccomp, resource limits — runs it under supervision, and tells the model
// what happened in words it can act on (package outcome).
//
// Sandbox is the contract: a workspace that can also run commands and says
// what it isolates. Local is ringfence's own implementation; package
// conformance checks any implementation the same way; package tools turns a
// sandbox into the tool definitions an agent calls.
//
// The zero Config (only Root set) is the agent profile, policy.AgentProfile:
// the workspace writable, the host readable but the user's credential
// places, no network (policy.AllowList asks for an allow-list instead). A context
// deadline is reported as KindTimedOut; an Exec whose context is already
// done returns an error wrapping context.DeadlineExceeded or
// context.Canceled. A command that could not be run exits 126 or 127, on
// every backend. ExecOptions.Terminal runs a command on a new
// pseudo-terminal, never the user's own.
//
// The root holds only this public API: every name is the one the pipeline
// in internal/sandbox defines (type aliases and forwarding functions, so a
// value made here is the value every layer handles), and no internal
// package imports the root. The package map below it: internal/sandbox (the
// pipeline: resolve → confine → run → classify → narrate),
// internal/confine (the Provider contract and its Traits) with
// internal/confine/backends (backend selection, the linux probe cache) and
// the backends themselves, internal/run (supervision), and the public
// deciding packages pathrule, policy, execpolicy and outcome. Because the
// types are aliases, `go doc` shows their fields and methods under the
// defining package: go doc github.com/ringfence/ringfence/internal/sandbox
// Local (the same for Session, Process, ExecResult, Config …).
//
// Threat model: the agent (and the model behind it) is untrusted. Requests
// from it may only narrow the deployment's policy; widening takes an
// approval minted by a person (policy.Approve). ringfence fails closed: when
// no backend on this host can enforce a confining policy, Exec refuses with
// an error wrapping policy.ErrUnavailable instead of running unconfined.
// What each backend cannot enforce is reported (Enforcement), never hidden:
// see docs/threat-model.md and docs/backends.md.
//
// # Sessions (internal/sandbox/session*.go)
//
// Local.Session starts one confined environment that lives until Close,
// its idle timeout, or ringfence's death (linux backend only): one init in
// its namespaces, one view, network namespace, private /tmp, home layer
// and cgroup. Session.Start has that already-confined init fork and
// execute a command (no new namespaces, no second Go start), so a
// background server started by one call answers the next on the session's
// loopback, and /tmp persists between calls. A Process has stdin (Write,
// CloseStdin), a bounded Ring per stream saying how much it dropped, an
// optional terminal (Resize; opened by the init in the sandbox's own devpts,
// so it is /dev/pts/N inside and no host terminal is involved), Signal (to its process group) and Wait,
// which classifies and narrates exactly as Exec. A Cmd whose own Request
// resolves to a policy other than the session's (narrowed, or widened by
// an approval) is refused with ErrSessionPolicy and never runs in the
// session: the caller runs it one-shot. A command cannot reach the
// init's control socket nor end the session by signalling its init (see
// internal/confine/initproc). Teardown leaves nothing on the host
// (TestSessionCloseLeavesNothing, TestSessionIdleTimeout); after a SIGKILL
// of ringfence every process and mount is gone at once, and the empty
// cgroup, the overlay work directory and the Local's private temp dir are
// swept by the next start (TestSessionSupervisorKilled). Start previews a
// Cmd's Request (policy.Preview) and resolves it only when it matches, so
// a refused call's single-call approval stays unspent for its one-shot
// run.
//
// Gaps: the session's memory and process limits are one budget, and a
// breach stops the whole session (the killed process's result and
// Session.Err say which limit); wall clock is per process (Cmd.Timeout)
// and CPU time is not enforced in a session; the domains network's
// decisions are the session's, not told per process; a process's output is
// kept (its most recent OutputKept bytes), never stopped for flooding as a
// one-shot run is, and output a background child writes to a stream it
// inherited lands in its starter's ring; a terminal process sees no
// /dev/console; the bwrap backend has no sessions (ErrSessionUnsupported).
//
// On the landlock backend (no namespaces) a session is one-shot runs,
// reported partial (Session.Shared false, Session.Reasons and every
// result's Enforcement.Reasons): each Start is its own confined run through
// Exec's pipeline (its own init, Landlock and seccomp), so the process API
// works (stdin, a PTY with resize, Signal to the command's tree below its
// runners, Wait's classified result, the output ring) and Close, the idle
// timeout or a SIGKILL of the supervisor leave nothing (each run's tree
// dies with its init, a subreaper with a parent-death signal). What it does
// not share: a pid or network namespace and a private /tmp; processes meet
// through files in the sandbox's private TMPDIR only (inet sockets are
// refused under deny and loopback, and each run's supervisor refuses a Unix
// socket another run listens on); a child a process puts in the background
// ends with that process's run (start a server as a process of its own);
// the session's memory and process limits are per process, not shared;
// Process.Pid is the run's root's host pid. Signal finds the command's
// processes by /proc (descendants of the run's root not running ringfence's
// binary), so a command that is ringfence's own binary is not signalled
// (it still ends with Close or its timeout).
package ringfence
