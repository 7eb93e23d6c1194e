// Package confine is the contract between ringfence's facade and its
// sandbox backends, and the backends' manual. It decides nothing about
// what is allowed: a backend receives a resolved policy.Policy and
// enforces exactly it, or refuses.
//
// # The Provider contract
//
// A Provider (one backend) has a Name, an Available probe and Confine.
// Confine(Request) gets the exact argv (never a shell string), the working
// directory, the complete environment (already allow-listed by the
// caller), the resolved policy and the workspace's mount path, and returns
// a Cmd: what to start in place of the argv (Path, Args, ExtraFiles,
// SysProcAttr, a Setup hook run with the child's pid before anything is
// read), and the facts of this run:
//
//   - Enforcement: Files full | partial | fence-only and Network
//     full | loopback-only | partial | none, with Reasons for anything
//     weaker than the policy asks. It is a report of what holds, never a
//     promise about what was asked.
//   - Status: the read end of a status channel (internal/status) the
//     command never holds. Runner failure is read from it, never inferred
//     from an exit code (a command can exit 125 or 127 on purpose).
//   - Dialect: how this backend's denials look (outcome.Dialect), so the
//     classifier reads "Permission denied" or EROFS as the backend's own.
//   - TreeKill: pid-namespace (killing the init ends every descendant) or
//     process-group (weaker: a setsid'd descendant escapes; reported).
//   - Cleanup, NetEvents, SetNet and, for sessions, Control.
//
// The rules every backend keeps:
//
//   - Never an unconfined Cmd for a confining policy. danger-full-access
//     is refused with ErrNotConfining; the caller runs it knowingly.
//   - Fail closed: a backend that cannot build the view, apply Landlock or
//     load seccomp reports a runner failure on the status channel and the
//     command does not start. A provider returning neither a Cmd nor an
//     error is treated as unavailable, not trusted.
//   - The spec travels to the backend's init over an inherited pipe, never
//     on the command line or in the environment; nothing is left on the
//     host afterwards (no mount-point files, no temp dirs).
//   - The program is looked up on the command's own PATH inside the
//     sandbox (internal/execpath), never on a dot-relative entry, which
//     names the model-written workspace.
//
// # How a backend is chosen
//
// Auto(providers...) is the first provider whose Available is nil, in
// strength order: linux, bwrap, landlock (the facade assembles the list).
// Select(name) resolves --backend: "auto" is the chain; any other name is
// that backend alone, and if it cannot work here the answer is the same
// typed *UnavailableError, never a silent fallback to another. When no
// backend works, Confine fails with *UnavailableError naming each backend
// tried and why; it wraps policy.ErrUnavailable. Available probes once
// and caches (the linux backend's trial run is cached per boot).
//
// # What each backend enforces
//
//   - linux: ringfence re-executes itself as a small init (`__confine`,
//     internal/confine/initproc; an entry point of internal/entry) in new
//     user, mount, pid, ipc, uts and (unless allow-all) net namespaces.
//     The view: host read-only, writable roots bound read-write, protected
//     and read-only carve-outs bound read-only over them with the
//     directories on the way pinned, denied paths masked, fresh /proc,
//     minimal /dev, private /tmp. Then Landlock, seccomp (and its create
//     guard and unix-socket supervisor), no_new_privs, every capability
//     dropped, inherited descriptors closed. Files full, tree kill by pid
//     namespace. See internal/confine/linux.
//   - bwrap: bubblewrap builds the same kind of view from a pure argv
//     (golden-tested), with ringfence's exec shim (`__exec`) as the
//     sandbox's pid 1 and --json-status-fd as part of the status channel.
//     See internal/confine/bwrap.
//   - landlock: where user namespaces are unavailable, the same init with
//     no namespace: Landlock, seccomp (protected names by the create
//     guard), no_new_privs, dropped capabilities. Always Files partial,
//     tree kill by process group, with the reasons. See
//     internal/confine/landlock.
//
// The domains network (--network domains) is shared by the backends that
// offer it: internal/confine/domainnet (a policy proxy outside the
// sandbox, reached over a handed-in socket, never a host TCP port).
//
// # Failure modes
//
//   - Unavailable backend: *UnavailableError before anything starts.
//   - Setup failure in the init (a mount, Landlock, seccomp): a Failed
//     event with its stage on the status channel, exit code
//     initproc.ExitSetup, the command never runs.
//   - Program not found or not executable: a Failed event (NotFound,
//     NotExecutable), told apart from the command's own 126/127.
//   - Missing protected path that cannot be mounted over without creating
//     it on the host: protected by the seccomp guard where the backend has
//     it, else reported in Enforcement (Files partial, naming it).
//
// # Threat model
//
// The command is hostile: it is written by a model that may be steered
// by what it read, and it runs with the user's uid. It may try to write
// outside the writable roots, plant persistence (git hooks and config,
// shell rc files, agent configs) at any depth, read denied paths by any
// route (symlinks, hard links, /proc, open_by_handle_at), reach host
// sockets and the network, signal or ptrace host processes, forge the
// runner's status, escape the tree kill, or race the supervisor. Each
// backend's package documents which layer stops which attempt, and its
// attack suite tries each for real, with an unconfined control.
//
// # Gaps
//
//   - The landlock backend has no mount view: protected paths hold by the
//     seccomp guard, not by the kernel's mount table; process-group tree
//     kill is weaker than a pid namespace. It says so (Files partial).
//   - bwrap depends on the installed bubblewrap: Available runs a trial
//     sandbox with every namespace the backend asks for, and a bwrap that
//     cannot build it is reported unavailable, with the failing step,
//     rather than half-used.
//   - What a backend cannot see (a file opened by the command's parent
//     before the run, a host daemon the command may talk to through an
//     allowed socket) is outside this package's reach.
//   - Enforcement is computed per run from this host's facts; a host that
//     changes (a sysctl, an AppArmor profile) between probe and run is
//     caught only when the init fails closed.
package confine
