// Package bwrap is the bubblewrap backend: it confines a command by running
// it under bwrap(1) with a mount view, namespaces and a seccomp filter built
// from the resolved policy.
//
// # What it guarantees
//
// Args (and Plan) are pure: the bwrap argv is a function of the policy, the
// request and injected host facts (StatFunc), golden-tested and fuzzed. The
// view is built from the policy's layers, broadest first, so the deepest
// layer wins:
//
//   - Baseline Read: --ro-bind / / (the host read-only). Baseline Deny:
//     bwrap's empty root, made read-only at the end, with only the policy's
//     grants plus the system set a program needs to start (/usr, /bin,
//     /sbin, /lib*, the loader cache and config, /etc/passwd, group,
//     nsswitch.conf, localtime, alternatives) and the shim binary;
//     Enforcement names each of those the policy itself would have hidden.
//   - Fresh /dev and /proc, a private tmpfs /tmp (the policy's TempDir and
//     any layer under /tmp are bound back in; so are the workspace root and
//     working directory at the access the policy gives them).
//   - Write layers: --bind. Read layers over a writable or hidden parent:
//     --ro-bind. Deny layers over a readable parent: an empty tmpfs for a
//     directory (remounted read-only once every mount inside it exists),
//     /dev/null for anything else.
//   - --unshare-user --disable-userns --unshare-pid --unshare-ipc
//     --unshare-uts --unshare-cgroup-try, --unshare-net unless the policy
//     allows all networks; --die-with-parent, --new-session, --cap-drop ALL,
//     --clearenv then --setenv for each allowed variable, --chdir.
//   - The seccomp filter of package seccomp (ptrace, mount, bpf, keyrings,
//     io_uring, namespaces, foreign architectures, TIOCSTI, …) via --seccomp.
//
// Nothing is left on the host: a mount is only made at a path that exists
// (or inside a tmpfs the sandbox owns), and bwrap's options travel in a
// memfd (--args), so environment values never appear on a command line.
//
// # The shim: status and unix-socket supervision
//
// bwrap's --json-status-fd reports {"child-pid"} and {"exit-code"}, but an
// exec failure looks like "bwrap: execvp …" on the stderr the command also
// writes, with exit 1, and a signal death looks like exit 128+N. So bwrap
// runs `ringfence __exec FD … -- ARGV` (Shim), visible inside the sandbox at
// its host path. It marks every inherited descriptor close-on-exec and, by
// default, stays as the command's parent: it loads a second seccomp filter
// (on its own locked thread, so only the command inherits it) that sends
// every unix-socket connect to SECCOMP_RET_USER_NOTIF, makes itself
// non-dumpable, starts the command, answers those connects with
// seccomp.SuperviseUnix from inside the sandbox (the supervisor must share
// the command's mount namespace), forwards signals, and writes Started and
// the exact Exited (code or signal name) on FD. A connect is allowed where
// the view is writable or sandbox-private (the command's own sockets, in
// its workspace, temp dir or private /tmp) or when the policy names the
// socket; any other path is a host service's socket and gets EACCES. If
// the command cannot be executed the shim writes Failed (not-found /
// not-executable, with the errno). Where the kernel lacks user
// notification (or with Options.NoSupervise) the shim executes the command
// in place instead, and the gap is reported.
//
// A goroutine reads bwrap's channel and the shim's and writes
// internal/status records to Cmd.Status: no shim record at all means bwrap
// failed before the command (Failed, stage "bwrap"). The command never
// holds FD (close-on-exec; bwrap's own init closes it too), so it cannot
// forge a record.
//
// # Threat model
//
// The command is hostile and runs as the invoking user. It must not write
// outside its writable roots (directly, through links, renames or hard
// links: the binds are separate mounts, so link and rename across them fail
// with EXDEV), write protected paths, read denied ones (through
// /proc/self/root too: there is no other root), reach the host's network,
// abstract sockets or unix sockets by path, see or signal host processes, gain capabilities, make a
// nested user namespace, keep descriptors or variables it was not given, or
// outlive the kill (killing bwrap kills its init, which ends the pid
// namespace). The attack tests try each of these and show each works
// unconfined.
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
//     the reason naming it.
//   - Unix-socket supervision has the gaps package seccomp documents
//     (sendmsg with an address on an unconnected datagram socket is not
//     supervised). A host socket placed inside a writable root is reachable:
//     the rule is by where a socket lives, not who made it. Without user
//     notification (old kernels, NoSupervise) connect() to any readable
//     host socket succeeds, and Files is "partial".
//   - Under network deny, bwrap brings lo up in the new namespace: the
//     command reaches its own loopback (never the host's). Network is
//     "loopback-only". Domain allow-lists are not supported (no proxy).
//   - The supervising shim is a process inside the sandbox, with the
//     command's uid: the command can signal it. Killing it ends the sandbox
//     (bwrap's init exits with its first child); stopping it makes the
//     command's own connects hang. Either way nothing opens. Without
//     supervision, bwrap folds a signal death into exit code 128+N.
//   - A pre-existing hard link inside a writable root to a file outside is
//     writable through the bind; the workspace fence refuses aliased writes.
//   - Renaming a directory that holds a protected path deeper than the
//     root's top level moves its mount along: a fresh directory of the same
//     name is then writable. The policy's generated protected paths sit
//     directly under each root, whose bind cannot be renamed (EBUSY).
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
// The private /tmp and /dev/shm get --size (ArgOptions.ScratchBytes).
package bwrap
