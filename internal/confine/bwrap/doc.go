// Package bwrap is the bubblewrap backend: it confines a command by running
// it under bwrap(1) with a mount view, namespaces and a seccomp filter built
// from the resolved policy.
//
// # What it guarantees
//
// Args (and Plan) are pure: the bwrap argv is a function of the policy, the
// request and injected host facts (StatFunc), golden-tested and fuzzed. The
// view is built from the view plan (internal/confine/viewplan: the layers
// with what comes before each, the pins, the missing carve-outs, the name
// guard; Confine builds it once for the pins, the argv and the entries),
// broadest first, so the deepest layer wins:
//
//   - Baseline Read: --ro-bind / / (the host read-only). Baseline Deny:
//     bwrap's empty root, made read-only at the end, with only the policy's
//     grants plus the system set a program needs to start (/usr, /bin,
//     /sbin, /lib*, the loader cache and config, /etc/passwd, group,
//     nsswitch.conf, localtime, alternatives) and the shim binary;
//     Enforcement names each of those the policy itself would have hidden.
//   - Fresh /dev, a fresh /proc made read-only (see the threat model), a
//     private tmpfs /tmp (the policy's TempDir and any layer under /tmp
//     are bound back in; so are the workspace root and working directory
//     at the access the policy gives them).
//   - Write layers: --bind. Read layers over a writable or hidden parent:
//     --ro-bind. Deny layers over a readable parent: an empty tmpfs for a
//     directory (remounted read-only once every mount inside it exists),
//     /dev/null for anything else.
//   - Every directory between a writable root and a carve-out in it (the
//     .git holding the protected hooks/ and config, say) is pinned: bound
//     over itself from a descriptor the provider opened beneath the root
//     without following links (--bind-fd), so it cannot be renamed or
//     removed and replaced by a fresh one (see PinDirs).
//   - --unshare-user --disable-userns --unshare-pid --as-pid-1 --unshare-ipc
//     --unshare-uts --unshare-cgroup-try, --unshare-net unless the policy
//     allows all networks; --die-with-parent, --new-session, --cap-drop ALL,
//     --clearenv then --setenv for each allowed variable, --chdir. On a
//     terminal (only ever the new one run opened for this command) the
//     exec shim makes it the controlling terminal of the session
//     --new-session gave it (TIOCSCTTY), or of its supervised child's, so
//     Ctrl-C and Ctrl-Z reach the command; bwrap names it /dev/console.
//   - The seccomp filter of package seccomp (ptrace, mount, bpf, keyrings,
//     io_uring, namespaces, foreign architectures, TIOCSTI, …) via --seccomp.
//
// Nothing is left on the host: a mount is only made at a path that exists
// (or inside a tmpfs the sandbox owns), and bwrap's options travel in a
// memfd (--args), so environment values never appear on a command line.
//
// # The shim: pid 1, status and unix-socket supervision
//
// bwrap's --json-status-fd reports {"child-pid"} and {"exit-code"}, but an
// exec failure looks like "bwrap: execvp …" on the stderr the command also
// writes, with exit 1, and a signal death looks like exit 128+N. So bwrap
// runs `ringfence __exec FD … -- ARGV` (package shim), and with --as-pid-1
// the shim is the sandbox's pid 1: there
// is no bwrap init in it. The shim first makes itself non-dumpable and asks
// for SIGKILL when bwrap dies; it marks every inherited descriptor
// close-on-exec and always stays as the command's parent and the
// sandbox's reaper. With supervision (the default) it loads a second
// seccomp filter (on its own locked thread, so only the command inherits
// it) that sends every unix-socket connect — and, when a protected path
// does not exist yet, every creation — to SECCOMP_RET_USER_NOTIF, starts
// the command, answers those from inside the sandbox (the supervisor must
// share the command's mount namespace), forwards signals, and writes
// Started and the exact Exited (code or signal name) on FD.
//
// The shim is executed from a descriptor bwrap inherits (fdPins), as
// /proc/self/fd/N in the sandbox's own /proc: the carried init image
// (internal/confine/initimage: a sealed memfd holding a small program that
// links the shim), or where there is none (off linux/amd64, no memfd, a
// test binary whose init sources changed since the image was generated)
// the running binary opened through /proc/self/exe. So a
// binary renamed over ringfence's never runs as the shim — inside the
// sandbox, with the capabilities bwrap adds for the domains network
// (TestReplacedBinaryCannotBecomeShim and …EmbeddedShim, as root and as
// nobody, with their controls) — nothing is bound into the view for it
// (under a deny baseline the ringfence binary stays hidden), and each run
// starts the image rather than the whole ringfence binary. A connect is
// allowed where the view is writable or sandbox-private (the command's own
// sockets, in its workspace, temp dir or private /tmp) or when the policy
// names the socket; any other path is a host service's socket and gets
// EACCES. If the command cannot be executed the shim writes Failed
// (not-found / not-executable, with the errno). Where the kernel lacks user
// notification (or with Options.NoSupervise) the second filter is left
// out, and the gap is reported.
//
// A goroutine reads bwrap's channel and the shim's and writes
// internal/status records to Cmd.Status: no shim record at all means bwrap
// failed before the command (Failed, stage "bwrap"). The command never
// holds FD (close-on-exec), so it cannot forge a record.
//
// Available probes bwrap by running it twice (--version, then a throwaway
// sandbox with every option used here). With Options.ProbeCache (ringfence
// sets it to the user's cache directory) a success is remembered per boot,
// user, bwrap binary and trial argv, and later runs skip both; a stale
// marker can only make a run fail closed, never run unconfined.
//
// # Threat model
//
// The command is hostile and runs as the invoking user — as root, that is
// host uid 0 (bwrap maps the caller's uid), with no capability. It must not
// write outside its writable roots (directly, through links, renames or
// hard links: the binds are separate mounts, so link and rename across them
// fail with EXDEV), write protected paths or replace the directories that
// hold them, read denied ones (through /proc/self/root too: there is no
// other root), reach the host's network, abstract sockets or unix sockets
// by path, see or signal host processes, gain capabilities, make a nested
// user namespace, keep descriptors or variables it was not given, or
// outlive the kill or ringfence itself. The attack tests try each of these,
// as root and as uid 65534, and show each works unconfined or under plain
// bwrap.
//
// What plain bwrap leaves open, and how this backend closes it:
//
//   - /proc is writable. bwrap covers only the /proc subdirectories that
//     access(W_OK) calls writable, and /proc/sys never is (its files are),
//     so as root a command writes any sysctl: kernel.core_pattern =
//     "|/workspace/h" runs h as host root in the host's namespaces at the
//     next crash. The view's /proc is remounted read-only (sysctls,
//     sysrq-trigger, every /proc/PID file): EROFS, as in the native
//     backend.
//   - bwrap's init is pid 1: outside the shim's filters, dumpable and of
//     the command's uid, so the command writes code into it (/proc/1/mem),
//     reads it, kcmp()s it, takes its descriptors (pidfd_getfd) — and code
//     running there creates protected names, connects to host sockets or
//     clears its parent-death signal and outlives ringfence. With
//     --as-pid-1 every process in the sandbox is the shim or the command's
//     tree; the shim is not dumpable (all of the above: EPERM/EACCES, as
//     the command holds no capability), and as the namespace's init it
//     cannot be killed or stopped from inside (the kernel drops SIGKILL and
//     SIGSTOP sent by members) while it catches every other signal.
//   - Ringfence's death: bwrap dies with it (--die-with-parent), the shim
//     with bwrap (parent-death signal, which the kernel delivers to a
//     namespace's init from its parent), and with pid 1 the whole pid
//     namespace.
//   - A mount moves along with a renamed parent: pins (above). A pin is a
//     read-write bind, so it is made from a descriptor opened beneath the
//     root without following links — bwrap binding a path would follow a
//     link the command planted (.git -> ../../elsewhere) and bind a host
//     directory read-write. The entries of an expanded root (Known gaps)
//     are bound the same way (Spec.Opens).
//
// # The domains network (--network domains)
//
// The exec shim hosts the in-namespace side the linux init hosts, with the
// same code (package sandboxnet): bwrap adds CAP_NET_ADMIN,
// CAP_NET_BIND_SERVICE and CAP_SETPCAP for it (--cap-add), the shim, as
// pid 1 and before the command exists, adds the local default routes on
// lo, binds the HTTP, SOCKS5, capture and DNS-stub listeners and then
// drops every capability as the init does (locked securebits, empty
// bounding set, nothing on any thread). Each accepted connection goes to
// the supervisor over an inherited SEQPACKET socket (the descriptor after
// the shim's image, `--proxy FD`), where domainnet.Setup serves it with the same proxy,
// events and asking as the linux backend. The stub's resolv.conf is bound
// over /etc/resolv.conf and the proxy variables are set. Network is
// "full". Differences from the linux backend:
//
//   - --disable-userns is left out: bwrap implements it with a nested user
//     namespace, from which the shim's capabilities do not reach the
//     network namespace. The seccomp filter still refuses every way to a
//     new user namespace (the suite's "new user namespace" attack).
//   - Only as root: for another user bwrap always nests the sandbox in a
//     second user namespace (to mount /dev/pts), with the same effect, so
//     Confine refuses domains there (ErrUnavailable, with the reason).
//   - The listeners run in the shim, which is also the command's
//     unix-socket supervisor: a connection flood costs the shim, bounded
//     as in the init (debug.SetMemoryLimit, netproxy.MaxConns).
//
// What the native backend holds that this one does not: Landlock (a second
// fence for writes, signal and abstract-socket scoping) and locked
// securebits; targets resolved in the view with RESOLVE_IN_ROOT (bwrap
// follows links in a mount's destination and, but for pins, its source).
//
// # Known gaps (reported in Enforcement, never hidden)
//
//   - A read-only or denied path that does not exist yet inside a writable
//     root cannot be mounted over: bwrap would have to create the mount
//     point on the host. By default the root is expanded around it instead
//     (an empty read-only tmpfs with every host entry bound back, links
//     recreated, the carve-out and the directories leading to it left
//     out), so it cannot be created; the price is that nothing can be
//     created, removed or renamed directly in that root (or in a directory
//     on the way), as with the native backend's Landlock expansion. With
//     Options.NoExpand the path is left unprotected and Files is "partial",
//     the reason naming it. When the shim supervises, a missing path that
//     is a protected name (policy.ProtectedByName) is neither expanded
//     around nor guarded by path: the shim's name guard (seccomp
//     Rules.Names, with write-opens supervised) holds it at every depth,
//     so `git init` works in a root without .git.
//   - Unix-socket supervision has the gaps package seccomp documents. A
//     host process's stream socket inside a writable root is refused (its
//     listener is outside bwrap's pid namespace) unless the policy names
//     it (--sock =PATH); a datagram to one is not. Without user
//     notification (old kernels, NoSupervise) connect() and datagrams to
//     any readable host socket succeed, Files is "partial", and chmod
//     with S_ISGID is refused even on directories (only the shim's
//     supervisor can tell a directory; set-id bits, set-id creation modes
//     and AF_VSOCK are refused by the base filter either way).
//   - Under network deny, bwrap brings lo up in the new namespace: the
//     command reaches its own loopback (never the host's). Network is
//     "loopback-only".
//   - The domains network needs ringfence run as root; for any other
//     user it is refused with the reason (see below).
//   - bwrap resolves a mount's destination (and, for every mount but the
//     pins, its source) by path, following links, after ringfence planned
//     it. A writer racing the start — another command running in the same
//     workspace at the same moment — could swap a directory there for a
//     link: a carve-out's read-only bind or a mask would then land
//     elsewhere (the carve-out itself unprotected for that run), or a
//     pin's workspace directory would appear at another place in the
//     sandbox's own view (never a host directory made writable). An
//     expanded root's entries, bound back read-write, are bound from
//     descriptors opened without following links as well: one that
//     changed since it was listed fails the run. The native backend
//     resolves inside the view instead.
//   - /proc is read-only as a whole: a command cannot write its own
//     /proc/self files either (oom_score_adj, comm, attr), as under the
//     native backend.
//   - A pre-existing hard link inside a writable root to a file outside is
//     writable through the bind; the workspace fence refuses aliased writes.
//   - No private home layer: bwrap 0.8 has no --overlay (0.9 does), so
//     home stays read-only; with Request.Home the toolchain cache
//     variables point at the workspace's private cache directory (bound
//     writable), ringfence's other state is masked, and a reason says so.
//
// Mount path (Request.MountPath): the workspace is bound there instead of
// at its real path (masked by an empty read-only tmpfs); bwrap cannot make
// a mountpoint in a read-only bind of the host's root, so the root is then
// bwrap's own tmpfs holding a read-only bind of every top-level host entry
// (links recreated), remounted read-only at the end (ArgOptions.ListRoot).
// The shim's name guard is given the writable roots as the view shows
// them (--names-root /workspace, not the masked real path): given the real
// path it held nothing at the mount path (TestMountPathProtectedNames).
// The private /tmp and /dev/shm get --size (ArgOptions.ScratchBytes).
package bwrap
