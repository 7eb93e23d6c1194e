// Package run starts a confined command and supervises it to the end: its
// output, its deadline, its resource limits, and the death of its whole
// process tree.
//
// # What it guarantees
//
//   - The environment is exactly the Cmd's: a nil Env is an empty
//     environment, never the supervisor's.
//   - Output is captured up to a ceiling per stream (1 MiB by default) and
//     anything beyond it is counted and reported as cut (Truncated holds the
//     bytes seen), never dropped silently. The supervisor's memory is bounded
//     by the ceilings plus one 64 KiB read buffer per stream, whatever the
//     command prints: streaming 10 GiB through `yes` grows its RSS by about
//     5 MiB in total. Output can be passed through live while captured.
//   - A timeout, a cancellation, a breached limit or an output ceiling stops
//     the whole tree, and the Result says which (TimedOut, Aborted, Breach)
//     with ExitCode nil. WallClock is a timeout reported as a breach.
//   - A timeout or a cancellation stops the tree gently when KillAfter is
//     set: SIGTERM to every process of the command's tree (not to the
//     runners — the init, bwrap, the exec shim, the reaper — recognised by
//     the binary they run, since some of them end the tree at once on
//     SIGTERM), so a shell's trap handlers run, then SIGKILL to all of it
//     once KillAfter has passed or the root has ended. A breach never gets
//     a grace. A context deadline is reported as TimedOut, a cancellation
//     as Aborted.
//   - With Options.Terminal the command runs on a new pseudo-terminal Run
//     opens (/dev/ptmx, the slave by TIOCGPTPEER): it is the command's
//     controlling terminal (the command, or the runner's child, leads a
//     session on it), the user's terminal is in raw mode meanwhile and
//     restored in release, on every way out of Run, and its window size is
//     followed on SIGWINCH, or set from Options.Resize (a session's remote
//     client: no terminal of its own to follow). Options.OnStart hands a
//     caller the root's pid (held unreaped until Run returns), e.g. to
//     signal the command below its runners. A user's terminal is never handed to a
//     command: as Stdin it is read through a pipe, as is every Stdin
//     descriptor but a pipe or /dev/null (a directory, file or socket
//     would be used as what it is: TestStdinDescriptorEscapes).
//   - When the Cmd has a status channel, its Exited event is the truth about
//     the command (the runner exits 128+n for a signalled command).
//   - Output and status are read until every write end is closed, or for
//     at most drainGrace after the tree is dead (something that escaped
//     may hold one); then each reader takes what its pipe holds and stops
//     (graceReader), so nothing the tree wrote is lost to a slow reader.
//   - Resource limits are enforced by a cgroup when this host lets the
//     supervisor make one ("quota": a delegated v2 hierarchy with memory and
//     pids, else the v1 memory and pids controllers, with cpuacct for CPU
//     time), else by sampling the tree every SampleInterval ("monitor").
//     Result.Resources says which; Breach names the limit that ended it.
//     Under v1 a group spans only the hierarchies its limits need
//     (v1Controllers): pids always (the process bound, pids.max, and the
//     census), memory only for a memory limit, cpuacct only for a CPU-time
//     limit. Making and removing a v1 memory or cpuacct group costs
//     milliseconds, and the CLI's default 512-process bound alone used to
//     pay it on every run; the bound is the same kernel count as before
//     (TestProcessesOnlyRunMakesOnlyAPidsGroup, TestForkBomb). Memory and
//     CPU use of such a run are sampled from /proc for the report only.
//     RLIMIT_NPROC was not chosen: the kernel exempts the host's root user
//     from it (copy_process compares the real user with INIT_USER), and a
//     confined run as root would then be unbounded.
//     Groups are made under the supervisor's own group (it stays within its
//     own budget) and removed after every run.
//   - The runner is born inside its group: under v1 the forking thread
//     visits the group for the fork (v2: CLONE_INTO_CGROUP), so not even the
//     first fork happens outside the limits, and nothing is moved after the
//     start. The thread moves itself (it writes "0" to tasks), which the
//     kernel does without the global lock whose every other use — a pid
//     written to cgroup.procs, a tid to tasks — waits for an RCU grace
//     period (5–20 ms on the shared test host; ≈0.05 ms for the visit).
//     place then only checks membership from /proc and moves what is not
//     inside. A gated runner (the linux init: confine.Cmd.Stage) gets its
//     spec before that check and starts nothing of the command until
//     admit, called only once it is placed (TestCommandStartsInsideItsGroup
//     and TestGateHoldsTheCommandUntilAdmitted in the linux backend). The
//     reaper alone is placed after its start (a move): it is the whole
//     binary, whose runtime starts threads while it waits at its gate, and
//     born inside they would be refused under a small process bound.
//     A runner's own threads count against the bound either way (the small
//     init's ≈7: `--pids 8` cannot run `echo hi | cat`; a known gap).
//
// # Threat model
//
// The command is hostile about its budget: it tries to outlive its
// deadline (a daemon that double-forks through setsid, re-parented away
// from the tree), to out-print the supervisor's memory, to fork without
// end, to balloon memory, to spin, or to survive the supervisor itself
// being SIGKILLed. The tree is stopped by, strongest first:
//
//   - pid namespace (TreeKill "pid-namespace"): SIGKILL of the namespace's
//     init ends every process in it; the init has SIGKILL as parent-death
//     signal, so a SIGKILL of the supervisor ends the namespace too.
//   - process group (TreeKill "process-group", weaker): the supervisor
//     freezes (SIGSTOP) what it finds below the root via
//     /proc/<pid>/task/*/children until the set is stable, then SIGKILLs
//     the group, each descendant found, and the root; then every member its
//     cgroup still lists (the one census a re-parented setsid daemon cannot
//     leave). With Options.Reaper the command runs under a re-executed
//     subreaper (internal/reaper): orphans are re-parented to it, not to the
//     host's init, and it ends the tree on its parent's death, even by
//     SIGKILL. The reaper is executed from the carried init image (a
//     sealed memfd, internal/confine/initimage: a small program, not the
//     whole binary) or, where there is none, from /proc/self/exe, the image
//     the supervisor runs — never from a path, so a binary renamed over
//     ours cannot run as it (TestReplacedBinaryCannotBecomeReaper and
//     …EmbeddedReaper, as root and as nobody, with their controls). From
//     the running binary, the binary must call entry.Dispatch
//     (internal/entry, where internal/reaper registers itself) first thing
//     in main (the ringfence binary and every TestMain do); Run refuses the
//     option otherwise, and refuses to run at all inside a process started
//     as the reaper, so a binary that fails to dispatch cannot recurse.
//
// Pdeathsig is tied to the OS thread that forked, so the forking goroutine
// stays locked to its thread until the child has been reaped.
//
// # Known gaps
//
//   - Monitor mode cannot prevent the spike between two samples (50 ms): a
//     fork bomb or a balloon can overshoot before it is stopped. RLIMIT_CPU
//     is set on the root as a per-process backstop; RLIMIT_AS is not
//     (address space is not memory) and RLIMIT_NPROC is not (it counts the
//     whole user, and root ignores it). CPU time of processes whose parent
//     died before reaping them is lost to the sum.
//   - Quota processes rule: the first fork refused at pids.max ends the tree
//     as over budget. Memory: the first OOM kill in the group does. CPU time
//     is sampled under quota too (no cgroup stops at a CPU-time total).
//   - v1 specifics: memsw is limited only where swap accounting exists; a
//     memory.failcnt without an OOM kill (reclaimed page cache) is not a
//     breach. v2 support is written against the documented interface but
//     this project's hosts (hybrid, v2 without memory/pids) cannot test it.
//   - Process-group mode without a cgroup and without the reaper: a daemon
//     re-parented away before the kill escapes the sweep, and if the
//     supervisor is SIGKILLed only the direct child dies. A command can also
//     kill its own reaper; the cgroup census still finds its tree, but
//     nothing ends it if the supervisor is also gone. Stale, empty groups of
//     a dead supervisor are removed by the next run; non-empty ones are left.
//   - A plain Cmd (no Setup, no reaper gate) placed after start when the
//     forking thread could not visit its group: its first instants run
//     outside the group. The root is never reaped while the tree is walked,
//     so the walk cannot start from a reused pid, but a descendant that
//     exits and whose pid is reused between being found and being killed
//     would be hit (a window of microseconds against a 32768-pid wrap).
//   - The runner counts toward Processes: the pid-namespace init or the
//     reaper is one of the tree.
//   - A live Stdout/Stderr writer that blocks forever blocks the drain and
//     therefore Run; one that fails is dropped and capture goes on.
//   - A Stdin reader that never returns keeps one goroutine until it does;
//     on a terminal, that goroutine may read one more keystroke after Run
//     returns (the CLI exits then).
//   - The gentle SIGTERM goes to the processes found when it is sent; one
//     forked just after is ended by the SIGKILL. A command process whose
//     binary is the runner's own (ringfence run inside ringfence) is
//     taken for a runner and gets only the SIGKILL.
//   - What the command prints to its terminal reaches the user's terminal
//     unfiltered, escape sequences included, as any program run there.
//   - On a terminal the command leads its own session, so under the
//     process-group tree kill it is outside the runner's group: the tree
//     walk and the cgroup census still find it.
//   - Supervision is implemented for Linux only; elsewhere Run returns
//     ErrUnsupported.
package run
