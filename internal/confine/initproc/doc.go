// Package initproc is the sandbox init shared by the linux and landlock
// backends: the ringfence binary re-executed as `ringfence __confine`,
// which confines itself and then starts the command as its child.
//
// # How it is started
//
// A backend builds a Spec and calls initimage.NewCmd (the parent's side
// lives there, so the init does not link internal/confine). The init is
// executed from SelfExe (/proc/self/exe: the image the supervisor runs,
// which cannot be written while it runs), never from the path the binary was installed
// at, so a binary renamed over ringfence's while a run starts cannot run
// as the init or as the exec stage (TestReplacedBinaryCannotBecomeInit in
// the landlock backend, with its control, as root and not). The spec (argv, working
// directory, environment, mount plan, Landlock rules, seccomp options)
// travels on an inherited pipe (descriptor 3), written by Cmd.Setup once
// the supervisor has placed the init in its cgroup; never on the command
// line or in the environment, where the command or a host ps could read
// it. The status channel (internal/status) is descriptor 4, close-on-exec,
// so only the init can write it. The init is the entry point Arg of the
// binary's entry table (internal/entry, registered by this package), so
// every binary that confines calls entry.Dispatch (or
// ringfence.MaybeInternal) first thing in main (or TestMain).
//
// # What the init does, in order
//
//  1. Marks every inherited descriptor above 4 close-on-exec (a leaked
//     canary, an agent socket never reaches the command).
//  2. With a View (linux backend, as uid 0.. of its own user namespace):
//     makes every mount private, clones the bind sources and makes the
//     home overlay (Overlay op: lower the host home, upper and work in
//     ringfence's state dir; all resolved on the host, before the view is
//     attached at a staging directory that could hide them), builds the
//     view on a detached copy of the host root set read-only, nosuid,
//     nodev (or on an empty tmpfs under an allow-list baseline, or, with
//     SynthRoot, on a tmpfs holding a read-only clone of every top-level
//     host entry, so a mount path missing on the host gets a mountpoint
//     without touching the host), applies the ops
//     in order (writable roots bound read-write, read-only and protected
//     carve-outs bound read-only over them, denied paths masked by an
//     empty mode-000 tmpfs or a no-dev /dev/null, fresh /proc (or, where
//     the kernel refuses one — a container's masked /proc — the
//     container's own, read-only, with the processes present at set-up
//     masked, each thread's /proc/<tid> too: ProcHost, chosen by the backend's probe and reported), minimal
//     /dev, private /tmp and /dev/shm of Op.Size bytes: ENOSPC when full;
//     a read-only one is made read-only only once mountpoints for paths
//     shown inside it exist), pins every directory between a root and a
//     carve-out (a mountpoint cannot be renamed or removed), and pivots
//     into it, detaching the host's tree. Targets are resolved inside the
//     view (openat2 RESOLVE_IN_ROOT), so a link in the workspace cannot
//     steer a mount onto the host. Missing mountpoints are created only
//     inside tmpfs mounts the init made: nothing is ever created on the
//     host.
//  3. Sets the host name, refuses AF_VSOCK on its main thread
//     (Spec.DenyVsock: vsock is not namespaced), brings "lo" up (loopback
//     mode). Under the
//     domains network (Spec.Proxy) it also adds local default routes on
//     lo and binds the
//     in-namespace listeners — HTTP proxy, SOCKS5, capture, DNS stub —
//     served by its other threads, which hand each accepted connection to
//     the supervisor on HandoffFD (netrule.Send). That code is package
//     domainnet/sandboxnet's, shared with the bwrap backend's exec shim.
//  4. Landlock at the best ABI the kernel offers: on its main thread
//     before ABI 8, on every thread as one domain (TSYNC) from ABI 8.
//  5. Drops privileges: locked securebits (NOROOT, NO_SETUID_FIXUP,
//     KEEP_CAPS off, NO_CAP_AMBIENT_RAISE), empty bounding set, no ambient
//     or inheritable capabilities, empty effective and permitted sets on
//     every thread, not dumpable. (An init that never had a capability —
//     the landlock backend run by a normal user — has nothing to lock;
//     no_new_privs keeps setuid and file capabilities inert.)
//  6. Seccomp (internal/confine/seccomp) on its main thread, plus a filter
//     refusing every socket family but AF_UNIX where there is no network
//     namespace; unix-socket connects and datagram sends are supervised by
//     the init (Seccomp.PeerCheck: a listener outside the sandbox is
//     refused unless UnixHost names it), set-id modes refused, and with
//     Seccomp.GuardMeta (landlock backend) every metadata change is
//     performed by the init only inside MetaWritable.
//  7. Started gated (GateArg: the linux backend, through
//     confine.Cmd.Stage), waits for the supervisor to open its gate,
//     which it does once it has checked that the init is in its cgroup
//     (born there, or moved: internal/run's place): the confinement above
//     is built meanwhile, and nothing of the command starts before the
//     init is inside its limits; a gate closed unopened fails the set-up
//     (stage "gate").
//     Becomes deaf to every signal it does not use (caught and dropped, so
//     the command still starts with default dispositions:
//     TestCommandStartsWithDefaultDispositions, with its control) — begun
//     on a goroutine of its own at the init's first step, which runs while
//     the main thread waits in the set-up's system calls, because each
//     signal costs a round trip to the runtime's signal thread (0.6–2 ms in
//     all on the shared test machine); not with a second P, which cost
//     ≈300 KB of resident memory and no measurable time — writes "exec"
//     on the status channel, then forks and executes the command from
//     that thread (it inherits all of the above) — on a terminal (only
//     ever the new one the supervisor opened, see run.Options.Terminal) as
//     the leader of a session whose controlling terminal it is, so Ctrl-C
//     and Ctrl-Z reach its foreground group; that terminal is also bound at
//     /dev/console in the view (checked to be the same device and inode)
//     so ttyname works — and reports "started" or
//     a "failed" with not-found or not-executable (exec errors come back
//     synchronously, so a missing program is never confused with a
//     command exiting 127). It forwards SIGTERM/INT/HUP/QUIT/USR1/USR2
//     (caught from its first step too; one caught before the command is
//     about to start ends the init as the runtime would have, so nothing
//     runs: TestSignalBeforeStartEndsTheInit, with its control),
//     reaps every orphan, and on the command's exit ends whatever the
//     command left running (without a pid namespace: it is a child
//     subreaper, so setsid'd daemons are its own), writes "exited" and
//     exits with the command's code (128+signal when killed). As pid 1 of
//     a pid namespace, its exit kills every remaining descendant.
//  8. With Spec.Nest (the landlock backend, Landlock ABI 6+) the command
//     is started through a short-lived exec stage: on linux/amd64 a
//     freestanding program of a few hundred instructions carried in a
//     sealed memfd (package execstage), elsewhere a second exec of the
//     init (`__confine exec`). It restricts itself with a Landlock domain
//     nested in the init's that only adds the scopes (signals, abstract
//     unix sockets) and grants reparenting everywhere (a layer that does
//     not would refuse every cross-directory rename), then executes the
//     command, reporting a failed exec on a close-on-exec pipe: EOF means
//     the command runs. The init is then outside the command's domain.
//
// # Sessions (Spec.Session, session.go, session_linux.go)
//
// A session init does steps 1–6 as above (and waits at its gate), then, instead of starting one
// command, serves requests on its control socket: a SOCK_SEQPACKET
// socketpair end at ControlFD (5, or 6 after the domains handoff). Each
// "start" carries the argv, environment and working directory (checked by
// DecodeRequest: an id, a program, an absolute directory, no NUL) and,
// with SCM_RIGHTS, the descriptors that become the command's 0, 1 and 2
// (pipes). A start with a Terminal size instead runs the command on a new
// pseudo-terminal the init opens in the view's own devpts
// (session_pty_linux.go: /dev/pts/ptmx, opened off the main thread, whose
// write guard could not read a non-dumpable init's memory, and checked to
// be the devpts multiplexer 5:2 with no link followed), so ttyname names it
// inside and no host terminal is involved; the init relays the first
// passed descriptor to its input and its output to the second, and
// "resize" sets its window size (SIGWINCH to its foreground group). The
// init forks and executes it from its main thread — the thread holding
// the Landlock domain (before ABI 8) and the seccomp filters — so every
// command gets exactly a one-shot command's confinement; it leads a
// process group of its own, which "signal" reaches. That thread has its
// own fs_struct (keepUmask, umask_linux.go: unshare(CLONE_FS) before
// seccomp), so every command starts with the session's umask even after
// the create guard's supervisor set the process umask to 0 for its own
// creations — before, every command after the first creation ran with
// umask 0000 and left world-writable files in the workspace
// (TestAttackSessionUmaskAfterFirstCreate in sandboxd/process). Reports go back as
// "started" (its pid), "failed" (not-found, not-executable, a refused
// request) or "exited" (code or signal), per process id, written with
// write(2) (sendmsg from the main thread goes through the unix-socket
// supervisor, which refuses a peer outside the sandbox). A blocking wait4
// reaps every child — commands and the orphans re-parented to pid 1 —
// and background processes outlive the command that started them until
// the session ends. A "signal" of SIGKILL (a timeout, a caller that went
// away) ends the command's whole tree, not only its group: the group and
// every descendant found through /proc/PID/task/*/children are stopped
// (SIGSTOP: no more forks) until the walk finds no new one, then killed,
// so a setsid'd child still below the command goes with it (killTree;
// only where /proc is the namespace's own — else the group alone). What
// the command let go before (reparented to the init) lives on. When the supervisor's end closes (Close, or ringfence
// died) the init exits, and as pid 1 its pid namespace, mounts and every
// process go with it.
//
// The control socket cannot be reached or forged by a command: it is
// marked close-on-exec with every inherited descriptor in step 1, it has
// no name, and the init is not dumpable, holds no capability and is
// behind seccomp's ptrace and pidfd_getfd refusal
// (TestSessionControlUnreachable in the linux backend, with its control:
// a leaked end is found and written to). A command cannot end its
// session by signalling pid 1: the session init drops SIGTERM, SIGINT and
// SIGHUP too (the one-shot init forwards them to its command)
// (TestSessionInitSurvivesSignalsFromInside, root package). The escape
// suite runs once through a session (TestSessionAttacks), as root and
// not. The processes of one session share its view, /tmp, loopback and
// uid, and can signal one another, as the processes of one shell can.
//
// # Threat model: the command against its init
//
// The command wants its init gone or silent: killed or crashed before it
// reports "started" (the model would be told the command never ran, so
// it would run it again), stopped (a stopped init cannot end the tree when
// ringfence dies), or tricked into ending the tree early. What holds:
//
//   - "Never ran" is a fact, not a timing guess: "exec" is written, and
//     read, before the fork, and a channel with "exec" but neither
//     "started" nor "failed" reads as started (status.Summary.Unconfirmed).
//   - Signals: as pid 1 of a pid namespace the kernel drops SIGKILL and
//     SIGSTOP from inside, and the init catches and drops every other
//     signal it does not use (Go's runtime would crash on a SIGABRT,
//     SIGSEGV or SIGSYS sent with kill). Without a pid namespace the
//     command's own scoped domain refuses every signal to the init (kill,
//     tgkill, a process-group or broadcast kill alike).
//   - Tree teardown does not need a live ringfence: the pid namespace, or
//     (landlock backend) the init ends every descendant on its
//     parent-death signal and when the command ends.
//
// Tests: TestNamespaceInitIgnoresSignalsFromInside (control: a plain Go
// pid 1 dies of SIGABRT, SIGSEGV, SIGSYS), TestStatusRecordsInOrder, and in
// the landlock backend TestCommandCannotSignalItsInit,
// TestInitKilledByCommandIsNeverNeverRan,
// TestStoppedInitAndKilledSupervisorLeaveNoSurvivors and
// TestDaemonEndsWithTheCommand, each with its control, as root and not.
//
// # Threads
//
// Capabilities, securebits, the bounding set, Landlock (before ABI 8) and
// a seccomp filter without TSYNC are per thread. The init runs locked to
// its main thread, confines that thread and forks the command from it.
// Its other threads (the seccomp supervisor, the signal forwarder) hold
// no capabilities but are outside the filter and, before ABI 8, outside
// the Landlock domain: then each thread's restriction is a separate
// domain, and a domain may not trace or signal a sibling, while the
// supervisor must read the command's memory. Because the supervisor
// performs connects and (with the create guard) file creations itself,
// the mount view must confine writes on its own, which is why /proc is
// mounted read-only. The command cannot reach those threads:
// seccomp refuses ptrace and process_vm_*, the init is not dumpable, and
// Landlock forbids a domain from tracing outside itself.
//
// # Gaps
//
// A gated init builds its confinement before it is in its cgroup: what it
// allocates and the CPU it spends until placed are charged to the
// supervisor's groups, not the run's (its own set-up, a few MB; nothing
// of the command, which starts only once the init is placed).
//
// Before ABI 8 the supervisor's connects on the command's behalf are not
// subject to Landlock's scope: host abstract unix sockets are reachable
// where no network namespace hides them (see the backends' reports).
// Pre-existing hard links to a denied file from a readable place are
// readable (mounts and Landlock are path-based). The init can still die by
// what is not a signal from the command: the OOM killer inside a memory
// limit, or its runtime failing to make a thread when a fork bomb has
// used every pid of the group; the run is then reported as started (never
// as "never ran"), and without a pid namespace only ringfence's own sweep
// (process group, cgroup census) ends the tree — nothing does if ringfence
// dies too. Before Landlock ABI 6 (no scopes) the landlock backend's
// command can signal, stop or kill its init (reported). The exec stage
// costs one more exec per command: about 1 ms for the carried stage,
// 6–8 ms where the init's own image (a Go program) is the stage. The init is executed from the image the
// caller names (initimage.NewCmd): a program runs the small init the ringfence binary
// carries (internal/confine/initimage: this package alone, from a sealed
// memfd, peak RSS under 4 MiB against 16 MB for the whole binary), a test
// binary runs itself (SelfExe), so the source under test is what runs.
// Both are built from the same source (initimage's freshness test). The
// carried exec stage runs from a sealed memfd the init makes; the Go
// stage re-executes the init's own image (SelfExe inside the init),
// which the command can neither write (sealed, or a running binary) nor
// read (the init is not dumpable); under the landlock backend the carried
// init needs no Landlock rule (Landlock does not restrict files of
// internal mounts, and refuses rules for them), the ringfence binary gets
// one that lets the command's domain read and execute it.
//
// Parent death: without a pid namespace the init learns of its
// supervisor's death by a catchable parent-death signal, and for a death
// before its handler was in place, by a parent that is no longer
// Spec.Parent (the supervisor's pid, set by initimage.NewCmd). "My parent is pid 1"
// is never taken as death: the supervisor may be a container's pid 1
// (TestParentGone; internal/containertest's TestPid1CommandRuns shows the
// command running with its own outcome where it was killed before).
//
// A seccomp supervisor that cannot start fails the set-up (stage
// seccomp) before the command exists, and one that stops on its own ends
// the init: a command is never left blocked in an unanswered call.
package initproc
