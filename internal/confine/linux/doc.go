// Package linux is the linux backend: ringfence re-executes itself as a
// small init (internal/confine/initproc) in new user, mount, pid, ipc and
// uts namespaces, and a network namespace unless the policy allows all
// network, builds a mount view of the policy, applies Landlock, drops
// every capability, loads seccomp and runs the command as its child.
//
// The view, Landlock rules, pins and guard names are translated from the
// one view plan (internal/confine/viewplan, NewPlanWith); this package
// adds only its own mounts (fresh /proc, /dev, /tmp, the home overlay,
// the mount path) and places them among the plan's steps.
//
// # What holds, and which layer holds it
//
//   - Writes outside the writable roots: the view (the host is a
//     read-only, nosuid, nodev recursive copy; EROFS), then Landlock
//     (writes are granted only to the roots, the private /tmp and /dev).
//     Links and renames out of a root cross mounts (EXDEV), and the target
//     side is read-only.
//
//   - Protected and read-only paths inside a root: read-only binds over
//     them; every directory between the root and such a path is pinned
//     (bound onto itself), so it can be neither removed nor renamed aside
//     and replaced (mv .git .git2 && mkdir -p .git/hooks: EBUSY).
//     Landlock cannot subtract, so it does not help here.
//
//   - Reads of denied paths: masked (mode-000 tmpfs, no-dev /dev/null:
//     EACCES) in the view itself, so every route — /proc/self/root, a
//     symlink, a new hard link (EXDEV, and the source is masked) — meets
//     the mask. The old root is detached; /proc belongs to the new pid
//     namespace, so /proc/<host pid>/{root,cwd} do not exist.
//     open_by_handle_at is refused by seccomp.
//
//   - Network: a fresh network namespace (nothing, or only its own "lo");
//     host unix sockets by path are refused by the seccomp supervisor
//     (a read-only mount does not stop connect); sockets in the writable
//     roots, the private /tmp, and those the policy names still connect.
//
//   - Network under domains: the namespace has only lo, with local
//     default routes (0.0.0.0/0, ::/0), so every destination is the
//     namespace's own: a connect lands on the init's capture listeners
//     (netproxy.CapturePorts) or is refused at once, UDP goes nowhere
//     (QUIC fails fast with ECONNREFUSED and falls back to TCP), and the
//     DNS stub (127.0.0.1:53, resolv.conf bound over /etc/resolv.conf)
//     answers A with stable fake addresses and refuses everything else.
//     Each accepted connection is handed to the supervisor over a
//     SEQPACKET socket pair (descriptor 5 of the init, close-on-exec: the
//     command never holds it; /proc/1 is not readable), where the
//     netproxy.Proxy decides it by name and relays it. Raw and packet
//     sockets need capabilities the command lacks. Both halves are
//     package domainnet's, shared with the bwrap backend; the tests are
//     its domaintest suite, run here and there.
//
//   - AF_VSOCK, under every mode but allow-all: vsock is not namespaced,
//     so a namespace with no interface would still reach the hypervisor
//     (host CID 2); the init refuses the family with a seccomp filter
//     (Spec.DenyVsock).
//     The init gets CAP_NET_BIND_SERVICE for the stub and the capture
//     ports, dropped with the rest before the command runs.
//
//   - Host processes: invisible (pid namespace); ptrace refused by seccomp.
//
//   - Kernel and host state: no capabilities in any namespace, seccomp
//     (mount API, unshare/setns/clone with namespace flags, bpf, keyrings,
//     io_uring, modules, kexec, TIOCSTI, …), hostname in a private uts
//     namespace, sysctls read-only.
//
//   - Escalation: no_new_privs, nosuid mounts, locked securebits, empty
//     bounding set: a setuid or file-capability binary yields nothing.
//
//   - Terminal injection: a new session without a controlling terminal,
//     and TIOCSTI refused by seccomp.
//
//   - Leaks: descriptors beyond stdio are close-on-exec before the command
//     runs; the environment is exactly Request.Env.
//
//   - Descendants: TreeKill pid-namespace; when the init exits, the kernel
//     kills the namespace.
//
//   - Protected paths that do not exist yet (.claude, .bashrc, .git/hooks
//     with no .git): a mount needs a mountpoint, creating one would leave
//     it on the host, and removing a host mountpoint unmounts it in every
//     namespace; Landlock has no per-name deny. So when one is missing,
//     seccomp's create guard is turned on (seccomp.Options.GuardCreate):
//     every creating call (open with O_CREAT, mkdir, mknod, symlink, link,
//     rename) is performed by the init's supervisor, which refuses names
//     at or beneath a carve-out (EROFS), an empty directory on the way
//     excepted. The supervisor acts outside the command's Landlock domain
//     (before ABI 8), so the mount view must confine writes by itself:
//     hence a read-only /proc (as root, uid 0 of the sandbox is the host's
//     root, whom /proc/sys's mode bits let write).
//
//   - Names protected at any depth of a writable root (policy.MatchProtectedName:
//     a nested repository's config and hooks, .cursor/, .envrc, hook names
//     anywhere, …): no mount can express them, so the guard always runs
//     with seccomp.Rules.Names and GuardWrite, which also sends every
//     write-open and truncate(2) to the supervisor. Protected carve-outs
//     it holds by name are not put in the absolute list (Plan.Named), so
//     `git init` can make an empty .git/hooks; existing ones stay
//     read-only binds.
//
//   - Home (Request.Home): an overlayfs over the home directory, made by
//     the init in its user namespace (kernel ≥ 5.11, "userxattr"): reads
//     see the real files, writes land in the workspace's upper directory
//     under ringfence's state dir (internal/homestate), so the real home
//     never changes and toolchain caches stay warm. Denied entries
//     (~/.ssh …) are masked above the overlay; moving, linking or copying
//     them meets the mask (EXDEV/EBUSY/EACCES). The state dir is masked,
//     and is anyway unreachable through the overlay (overlayfs refuses a
//     lookup into its own upper layer: ELOOP). Landlock grants writes to
//     home only when it is overlaid. A home the policy makes writable,
//     denies, or that holds the workspace is left as the policy says.
//     Where home cannot be layered — its state directory on overlayfs,
//     nfs, fuse or ecryptfs, or mounts beneath home (locked in the user
//     namespace, and overlayfs refuses a lower directory holding them) —
//     home stays read-only, the toolchain cache variables point at the
//     workspace's private cache (bound writable at /tmp/.ringfence-cache)
//     and a reason says so, instead of every run failing at set-up.
//     The init keeps CAP_DAC_OVERRIDE until the view is built: overlayfs
//     makes its work directory mode 000 and must still use it (only the
//     caller's own uid is mapped, so only its own inodes are affected).
//
//   - Mount path (Request.MountPath, "/workspace" under servers): the
//     workspace is bound there instead of at its real path, which is
//     masked, so paths the model is told are true and no host path
//     leaks; every layer under the root moves with it, and the mount path
//     is a writable root of the view (Landlock, unix sockets, the name
//     guard) even when the workspace is writable only through a broader
//     root, which does not move (TestMountPathUnderWritableParent: its
//     .git/hooks was writable at /workspace before). The view's root is
//     then a read-only tmpfs of per-entry binds of the host's root
//     (View.SynthRoot), so the mountpoint can be made without touching
//     the host. A mount path over a system directory, the root of
//     everything, or one holding a layer from outside the workspace is
//     refused (confine.CheckMountPath).
//
//   - Scratch: the private /tmp and /dev/shm are tmpfs of
//     confine.ScratchSize (policy limit, else min(1 GiB, RAM/4)): filling
//     them ends in ENOSPC, not host memory pressure. A workspace or a
//     named path under /tmp is bound into the private /tmp in every mode
//     (a read-only /tmp is made read-only only after its mountpoints).
//
// # Sessions
//
// Request.Session asks for a session init (initproc.Spec.Session): the
// same plan, view and confinement, with a control socket in Cmd.Control
// instead of a command (session_linux.go). Every process the session
// starts runs in the one view, network namespace, private /tmp and home
// layer; the session's limits are its run's cgroup. The escape suite runs
// through a session (TestSessionAttacks, each attack the second command
// of a fresh session, checked once the session closed), as root and not
// (TestSessionAsNonRoot).
//
// # Degrading step by step (a container)
//
// Available's probe starts the init in the namespaces, has it build a view
// with a fresh /proc and set its host name. Where one of those steps is
// refused while the namespaces work — a container whose runtime masked
// parts of /proc (a proc mount in a user namespace is then "too
// revealing": EPERM), a seccomp profile that keeps sethostname for
// CAP_SYS_ADMIN — the probe tries again without that step (nextStep, a
// table-tested decision) and the backend stays available with the step
// left out (Degraded): the view shows the container's own /proc
// (initproc.ProcHost: read-only, present processes masked; files
// partial), the UTS namespace keeps the container's name. Every run names
// each step not taken in its enforcement reasons; doctor lists them. Only
// when the namespaces themselves are refused is the backend unavailable,
// and auto falls to bwrap or Landlock. Tested in a real container by
// internal/containertest (TestContainerMatrix, TestHostProcInContainer).
//
// # Gaps (reported in Enforcement, never claimed)
//
//   - The home layer persists per workspace: what one run writes under
//     home (a ~/.bashrc included) the next confined run of the same
//     workspace sees; never the host. `ringfence cache clear` drops it.
//
//   - The home layer is mounted volatile (initproc.newOverlay): fsync
//     under home does not reach the disk (and fails with EIO after any
//     write error on the filesystem holding the state directory), and
//     after a host crash the next run starts the layer afresh
//     (homestate.NewRunWork) — never the workspace, which is not in the
//     layer. Without it each run's end synced the whole host filesystem
//     holding the state directory.
//
//   - Concurrent runs of one workspace share its upper directory (the
//     kernel warns "in-use as upperdir"; index=off keeps it from refusing
//     the mount): a file two runs write at once under home ends as one of
//     them. Caches tolerate this; nothing reaches the host either way.
//
//   - A host socket under home stays unconnectable even though home is
//     writable (the overlay shows the host's socket inodes).
//
//   - Under allow-all the command shares the host's network namespace,
//     abstract unix sockets included (Network none).
//
//   - Host /sys is visible read-only; the host's /tmp is replaced by a
//     private one (paths under host /tmp that neither the workspace nor a
//     layer names are not visible).
//
// Available probes by starting the init for real (once per Provider);
// Options.Quick checks only the kernel switches, for one-shot CLIs.
// Options.ForceUnavailable simulates a host without user namespaces.
package linux
