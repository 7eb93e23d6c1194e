// Package reaper is the subreaper a process-group run is started under
// (internal/run, Options.Reaper): the entry point `__reap` (Arg), which
// starts the command and stays its parent until the whole tree is gone.
//
// It is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphan of the
// tree, a setsid'd daemon included, is re-parented to it rather than to
// the host's init, so it can always find and end them. It has SIGTERM as
// its parent-death signal and ends the whole tree when the supervisor
// dies, even by SIGKILL. It waits on a start gate, so the supervisor
// places it in its cgroup before the command runs, and it reports on a
// status channel (internal/status) the command never holds.
//
// The package is small on purpose: the sandbox init's image
// (internal/confine/initimage) carries it, so the supervisor starts the
// reaper from that sealed memfd — a small program — instead of
// re-executing the whole ringfence binary (a 30 MB program's start, ≈16
// ms on a slow host, paid by every danger-full-access run). It links only
// internal/entry, internal/status and internal/proctree.
//
// # Threat model
//
//   - The reaper runs outside any sandbox with the supervisor's
//     privileges, so it must be exactly our code: the supervisor executes
//     it from the sealed memfd, or from /proc/self/exe (the image it runs),
//     never from the path ringfence was installed at
//     (TestReplacedBinaryCannotBecomeReaper, and the embedded variant).
//   - It acts only when started by the supervisor: its argv is checked and
//     it demands the marker variable Env, which it removes before the
//     command runs. A binary that was re-executed as the reaper but does
//     not dispatch would run its ordinary main; internal/run refuses to
//     run inside a process carrying Env, ending that recursion.
//   - The command gets descriptors 0, 1, 2 and its own 3…3+N-1, nothing
//     else: the status channel, the gate and every descriptor above them
//     (the image the reaper was executed from) are close-on-exec before
//     the command starts.
//
// # Gaps
//
// The reaper itself is placed in its cgroup after it starts (before the
// gate opens): its own threads count against a process limit. It is not
// dumpable, so a command of the same user can neither reopen its status
// channel through /proc nor trace it (TestCommandCannotForgeReaperStatus,
// with its control), but it can signal it; a command with CAP_SYS_PTRACE —
// root's, under danger-full-access, where nothing is confined — can do
// both. Where the memfd can be made but an LSM refuses to execute it,
// every run started from the image fails (the init's too); RINGFENCE_INIT=
// self makes the reaper, the init and the shim the running binary again.
package reaper
