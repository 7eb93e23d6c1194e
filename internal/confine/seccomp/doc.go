// Package seccomp builds, loads and supervises ringfence's seccomp filter:
// the syscall-level layer under Landlock and the namespaces.
//
// # Use (the sandbox init)
//
// The init, after building its namespaces and applying Landlock:
//
//	prog, err := seccomp.Build(seccomp.Options{DenyUnixConnect: denyHostSockets, GuardCreate: true})
//	if err != nil { fail closed }           // unsupported arch wraps policy.ErrUnavailable
//	runtime.LockOSThread()                  // ThisThread: never unlock
//	listener, err := seccomp.Install(prog, seccomp.ThisThread)
//	if err != nil { fail closed }
//	if listener != nil {
//		go func() {
//			// nil once no task uses the filter, ctx.Err() when cancelled.
//			rules := seccomp.Protect(protectedPaths).Rules(allowSocket)
//			rules.Confine = restrictThisThread // Landlock ABI < 8: see Rules.Confine
//			if err := seccomp.Supervise(ctx, listener, rules); err != nil { report(err) }
//			listener.Close() // later supervised calls fail with ENOSYS, never hang
//		}()
//	}
//	cmd.Start()                             // from this goroutine: the child inherits the filter
//
// Build is pure; Install and Supervise (SuperviseUnix is Supervise with
// only Rules.AllowUnix) are Linux-only (elsewhere they
// return ErrNotSupported). Two ways to install:
//
//   - ThisThread (recommended for the init): only the calling thread, and
//     the command forked from it, are filtered. The caller must hold
//     runtime.LockOSThread and never release it, or the Go scheduler would
//     hand the filtered thread to other goroutines. The supervisor then runs
//     unfiltered on the init's other threads.
//   - Without flags: every thread (SECCOMP_FILTER_FLAG_TSYNC, with
//     TSYNC_ESRCH when there is a listener, as seccomp(2) requires). The
//     supervisor is then filtered too; its own connect calls come back to it
//     and it lets them continue (it knows its thread ids; a target cannot
//     forge the pid in a notification).
//
// Both modes set no_new_privs first. Either way the command must be started
// with fork+exec as Go's os/exec does (clone without namespace flags, then
// execve), not with SysProcAttr.UseCgroupFD: that makes Go use clone3, which
// the filter answers with ENOSYS. Put the child in its cgroup by writing
// cgroup.procs instead. The init should be non-dumpable
// (prctl(PR_SET_DUMPABLE, 0)) so the command cannot read or write its
// memory through /proc/1/mem, which seccomp cannot see.
//
// # What the filter guarantees
//
// The program first compares seccomp_data.arch with the one architecture it
// was built for and kills the process (SECCOMP_RET_KILL_PROCESS, seen as
// SIGSYS) on any other. On amd64 it also kills x32 calls (number with bit
// 0x40000000 set). Syscall numbers are per ABI: a filter that only compares
// numbers reads an `int $0x80` call with the amd64 table and is bypassed
// (CVE-2009-0835 was this hole in seccomp's first mode). Number -1, what a
// skipped syscall looks like, passes on to the kernel's ENOSYS.
//
// It is a deny-list: everything not named below is allowed. An allow-list
// would have to know every syscall of every tool an agent runs (compilers,
// language runtimes, databases, browsers), and a missed one breaks work in
// ways that look like bugs in the tool; the calls that matter for escaping
// or attacking the kernel are few and well known. The kernel's seccomp
// cache (Linux 5.11+) makes every syscall whose verdict does not depend on
// its arguments free after the first call; only clone, ioctl,
// personality, socket, socketpair, the chmod family, open/openat, creat,
// mknod(at) (and, when supervising, connect, sendto, sendmsg, sendmmsg and
// the metadata calls of GuardMeta) run the program each time.
//
// Refused with EPERM, so programs print "Operation not permitted":
//
//   - ptrace, process_vm_readv, process_vm_writev (unless
//     Options.AllowPtrace): reading or rewriting another process; before
//     Linux 4.8 a tracer could also change a syscall after the filter had
//     checked it.
//   - mount, umount2, pivot_root, chroot and the new mount API (fsopen,
//     fsconfig, fsmount, fspick, move_mount, open_tree, open_tree_attr,
//     mount_setattr): rearranging the view the init built. CVE-2022-0185
//     (fsconfig heap overflow) was reachable this way from a user namespace.
//   - unshare and setns (any flags), clone with any CLONE_NEW* flag (the low
//     32 bits of flags, which are all the kernel reads): a new user
//     namespace hands back every capability and with it root-only kernel
//     code (netfilter, filesystems: CVE-2022-0185, CVE-2022-25636, …).
//   - clone3 → ENOSYS: its flags are behind a pointer a filter cannot read;
//     glibc (2.34+) and Go fall back to clone on ENOSYS.
//   - bpf (verifier bugs: CVE-2020-8835, CVE-2021-3490), perf_event_open
//     (CVE-2013-2094), userfaultfd (turns kernel races into reliable
//     exploits), io_uring_setup/enter/register (a large share of recent
//     kernel exploits, and its operations never pass through seccomp).
//   - keyctl, add_key, request_key: keyrings are not namespaced
//     (CVE-2016-0728 was a refcount overflow here).
//   - kexec_load, kexec_file_load, init_module, finit_module,
//     delete_module: replacing or extending the kernel.
//   - ioctl with TIOCSTI or TIOCLINUX, compared on the low 32 bits as the
//     kernel does (a request with high bits set still means TIOCSTI):
//     pushing keystrokes into the terminal the user types in after the
//     command exits (CVE-2016-7545, CVE-2017-5226 in bubblewrap;
//     CVE-2023-1523 via TIOCLINUX in snapd).
//   - personality with anything but PER_LINUX, PER_LINUX32 (only changes
//     uname's machine) or 0xffffffff (the query): the other flags weaken
//     the process's own hardening (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC,
//     MMAP_PAGE_ZERO: CVE-2009-1895). `setarch -R` therefore fails.
//   - open_by_handle_at, name_to_handle_at: a file handle opens a file on
//     the same filesystem whatever the mount view (the 2014 "shocker"
//     container escape).
//   - socket and socketpair with AF_VSOCK → EAFNOSUPPORT (what a kernel
//     without vsock answers): a vsock reaches the hypervisor's services
//     whatever the network namespace, so --network deny would not hold.
//   - set-id programs (see "Set-id, capabilities and owners" below).
//   - host state, mostly capability-gated already (refused anyway, as a
//     second wall): acct, swapon, swapoff, reboot, quotactl, quotactl_fd,
//     settimeofday, clock_settime, clock_adjtime, adjtimex, sethostname,
//     setdomainname (harmless in a UTS namespace), syslog (kernel addresses
//     defeat KASLR), vhangup, nfsservctl, lookup_dcookie, iopl and ioperm
//     (amd64 only: raw port I/O), fanotify_init (watching a whole
//     filesystem).
//
// # Under a host /proc (UseHostProc)
//
// Notifications carry tids of the supervisor's pid namespace. Where the
// sandbox shows the container's /proc (initproc.ProcHost: no fresh one can
// be mounted), /proc numbers tasks as the container does, so every /proc
// path the supervisor builds uses the task's number there, read from a
// pidfd's fdinfo (the kernel writes it in the numbering of the procfs it
// is read through). As with identity numbering, whatever was opened from
// it is confirmed by SECCOMP_IOCTL_NOTIF_ID_VALID afterwards.
//
// # Unix-socket supervision
//
// A read-only mount does not stop connect(2): a Docker or ssh-agent socket
// the command can see is a way out. With Options.DenyUnixConnect the filter
// sends every connect, every sendto that names a destination, and every
// sendmsg and sendmmsg (see "Datagrams") to SECCOMP_RET_USER_NOTIF.
// SuperviseUnix answers each one:
//
//  1. It opens the calling thread (pidfd_open with PIDFD_THREAD) and its
//     memory (/proc/TID/mem), then checks SECCOMP_IOCTL_NOTIF_ID_VALID: the
//     thread is still blocked in the call, so the pid was not reused.
//  2. It takes the thread's socket with pidfd_getfd (EBADF, ENOTSOCK as the
//     kernel would) and copies the address out of its memory once.
//  3. For an AF_UNIX socket naming a filesystem path, it opens the path
//     itself with O_PATH (following symlinks as connect does; relative paths
//     from /proc/TID/cwd), reads back the resolved absolute path and asks
//     allow. Refused → EACCES.
//  4. It performs the call itself on the taken socket, naming the opened
//     inode as /proc/self/fd/N, and answers with the result.
//
// The kernel never re-reads the target's memory and the supervisor never
// looks up the path twice, so a second thread rewriting the address, or a
// symlink or directory swapped after the check, changes nothing (the
// classic TOCTOU of SECCOMP_USER_NOTIF_FLAG_CONTINUE, which seccomp_unotify(2)
// warns must not be used for security decisions). Abstract and unnamed unix
// addresses and other families are carried out unchanged, without asking:
// abstract sockets belong to the network namespace and Landlock scopes them.
// Because the supervisor makes the call, it must share the target's mount
// namespace, root and Landlock domain: run it in the init.
//
// # IP destinations (Rules.InetConnect, Options.GuardListen)
//
// A sandbox that shares the host's network (the landlock backend under the
// domains network) may reach only the policy proxy on 127.0.0.1. With
// Rules.InetConnect (ProxyOnly), the address of every supervised connect,
// sendto and sendmsg on an IP socket is parsed from the one copy read
// (family, port, address, IPv6 scope as a zone; a short address is
// EINVAL, AF_UNSPEC passes: it reaches nothing), decided, and rebuilt:
// the supervisor connects the target's socket to the sockaddr it encoded
// (127.0.0.1, or ::ffff:127.0.0.1 for an IPv6 socket) and never to the
// target's bytes. Refused: EACCES. Other loopback addresses (127.0.0.2,
// ::1 is rewritten, a zone is refused), other ports and port 0 are
// refused. The connect runs on a Rules.Confine thread (the command's
// Landlock domain, whose TCP rules then hold it too); a non-blocking
// socket returns EINPROGRESS as it would have (O_NONBLOCK belongs to the
// shared open file description). Options.GuardListen sends listen(2) to
// the supervisor, which refuses it on IP sockets under InetConnect and
// performs it on the target's socket otherwise (a unix listener's
// SO_PEERCRED then names the supervisor). The socket types that may exist
// at all are the caller's filter's matter (the landlock backend allows
// only TCP: initproc.ProxyInetFilter).
//
// # Set-id, capabilities and owners
//
// A set-user-id or set-group-id program left in the workspace runs with
// its owner's privilege when the host later executes it (the owner is
// root when the command ran as root). Every filter Build emits therefore
// refuses, with EPERM, whatever the options:
//
//   - chmod, fchmod, fchmodat, fchmodat2 with S_ISUID in the mode (low
//     word, as the kernel reads a mode_t);
//   - creating a file with S_ISUID or S_ISGID in its mode: open and openat
//     whose flags hold O_CREAT or O_TMPFILE (the kernel reads the mode only
//     then, so junk in the mode slot of a plain open is ignored), creat,
//     mknod, mknodat. mkdir is not checked: it ignores both bits (a new
//     directory may inherit S_ISGID from its parent, which is ordinary);
//   - openat2 → ENOSYS: its mode sits in struct open_how, behind a pointer
//     (glibc, Go and Rust open with openat; systemd falls back on ENOSYS).
//
// S_ISGID is ordinary on a directory (`mkdir -m 2775`, `chmod g+s dir`:
// new files take the directory's group) and dangerous on a file; only
// the file's type tells, which a filter cannot read. With a listener, a
// chmod with S_ISGID (and not S_ISUID) goes to the supervisor, which opens
// the object once (O_PATH, as the call resolves it: following a final
// symlink except for fchmodat2's AT_SYMLINK_NOFOLLOW; the target's own
// descriptor for fchmod), fstat's it, refuses (EPERM) anything but a
// directory and changes the mode of that very inode itself. Without a
// listener it is refused everywhere (the stricter documented rule);
// Options.LeaveSetGID lets it through one filter for a supervising filter
// stacked after it (bwrap's base filter when its exec shim supervises).
// Copies that preserve modes (cp -p, tar -p, install -m 4755, Python's
// os.chmod) fail on the set-id bits only, with EPERM.
//
// File capabilities (the security.capability xattr) and foreign owners are
// not refused by the filter: the sandbox holds no capability, and the
// kernel requires CAP_SETFCAP for security.capability (CAP_SYS_ADMIN for
// other security.* and trusted.*), and CAP_CHOWN to give a file to
// another user or to a group the caller is not in. The backends' attack
// suites prove it as root on every backend (setcap, chown 4242, a hard
// link to /usr/bin/passwd), with unconfined controls where each works.
//
// # Metadata outside the writable roots (Options.GuardMeta)
//
// Landlock (ABI ≤ 7) has no right for metadata, and the landlock backend
// has no read-only mount view: chmod, chown, utimes and setxattr reached
// host files outside the workspace. With GuardMeta every such call goes to
// the supervisor: chmod, fchmod, fchmodat(2); chown, fchown, lchown,
// fchownat; utime, utimes, futimesat, utimensat; setxattr, lsetxattr,
// fsetxattr, removexattr, lremovexattr, fremovexattr (setxattrat and
// removexattrat, which take a struct, fail with ENOSYS; libc does not use
// them). For each, the supervisor
//
//  1. takes the object once: a path is opened with O_PATH from the
//     target's working directory or dirfd (/proc/self and the supervisor's
//     own /proc entries rewritten to the target's, as for creations),
//     following a final symlink unless the call says not to; a descriptor
//     is taken with pidfd_getfd (the same open file description);
//  2. reads that descriptor's path back from /proc/self/fd and asks
//     Rules.MetaWritable (EPERM when it says no; procfs objects are
//     refused outright). A descriptor is judged by the file it holds, not
//     by how it was opened: a read-only descriptor of a workspace file may
//     be fchmod'ed (as the kernel allows its owner), a writable one of a
//     host file may not (/dev/null and terminals are writable to the
//     command but are not its to chmod). An unlinked file with no name
//     left (O_TMPFILE, deleted) reaches nothing and is allowed; a file
//     whose name is deleted but that is linked elsewhere is refused; a
//     pipe or socket held by descriptor (a server's fchmod before bind)
//     has no name anywhere and is allowed; anonymous inodes (one inode
//     the kernel shares between all) are refused;
//  3. performs the change itself on that descriptor (fchmod, fchownat or
//     utimensat with AT_EMPTY_PATH, f*xattr, or the path
//     /proc/self/fd/N, which reaches the same inode), so a symlink or
//     directory swapped after the check changes nothing. Never
//     check-then-continue. The set-id rules above apply too. A test swaps
//     a symlink in the root between a file of its own and a host file
//     under a chmod loop: unconfined the host file changes, supervised it
//     never does (about 20,000 supervised chmods in 1.5 s, none through).
//
// The linux and bwrap backends need none of this: their views bind every
// non-writable path read-only, and a read-only mount refuses metadata
// changes (EROFS); their suites prove it.
//
// # Datagrams
//
// With DenyUnixConnect, sendmsg and sendmmsg go to the supervisor too: a
// datagram's destination (msg_name) is behind a pointer, and letting a
// call without one continue would let another thread add one, or swap the
// descriptor, before the kernel reads them again. The supervisor copies
// the msghdr, its iovecs (at most 1 MiB: a stream send is cut there, as a
// short send may be; a larger datagram fails with EMSGSIZE) and its control
// data once, takes every SCM_RIGHTS descriptor from the target, checks a
// destination as a connect's (AllowUnix; a filesystem path is opened once
// and named as /proc/self/fd/N) and sends on the target's socket itself,
// with MSG_NOSIGNAL (SIGPIPE is sent to the target as the kernel would).
// sendmmsg sends each message so, and stores each msg_len in the target's
// memory (through /proc/TID/mem opened while the notification was valid,
// else process_vm_writev between two validity checks). A test flips a
// destination between an allowed and a host socket from a second thread:
// unconfined the host receives (307 of 400 in one run), supervised never.
//
// # Peers of workspace sockets (Rules.PeerInside)
//
// A socket file under a writable root is allowed by AllowUnix, but the
// process listening on it may be the host's (an IDE's, a language
// server's). With PeerInside set, after the supervisor's connect to a
// filesystem socket that Rules.AllowUnixHost does not name, it reads the
// connected socket's SO_PEERCRED: the kernel reports the listener's pid
// in the reader's pid namespace, 0 when the listener is outside it. The
// linux backend's init and bwrap's shim live in the sandbox's own pid
// namespace (PeerInPidNamespace: any visible pid is the sandbox's); the
// landlock backend's init has none and is a subreaper, so every process
// of the command descends from it (PeerDescendant walks the parent
// chain). SO_PEERCRED names the process that called listen(); when it has
// exited (a daemon such as ssh-agent listens, forks and lets its parent
// exit), Rules.PeerHeld decides instead: DescendantHolds lists the socket
// inodes the init's descendants hold (/proc/PID/fd) and asks sock_diag
// which listening socket is bound to the very file connected to (device
// and inode of the descriptor the supervisor opened). Refused: the socket is shut down both ways and the call fails
// with EACCES; the listener saw a connection that closed without a byte.
// Why after the connect: only a connected socket carries its peer's
// credentials, and a probe connection of the supervisor's own would take
// the one accept a sandbox server may make. Sockets the policy names
// (AllowUnixHost) connect whoever listens.
//
// # Guarding creation (Options.GuardCreate)
//
// Inside a writable root some names must never be made by the command
// (.bashrc, .git/hooks, .claude/, …: the host runs what they hold later,
// outside any sandbox). Existing ones are read-only bind mounts; missing
// ones cannot be mounted over without leaving a mountpoint on the host,
// and Landlock cannot refuse one name inside a directory it lets the
// command write. With GuardCreate the filter sends every call that can
// create or replace a name to the supervisor: open and openat when their
// flags (low word) hold O_CREAT, and creat, mkdir(at), mknod(at),
// symlink(at), link(at), rename(at), renameat2 always (arm64 has only the
// *at forms). openat2 fails with ENOSYS: its flags sit behind a pointer,
// and glibc, Go and Rust open with openat (systemd falls back on ENOSYS).
// O_TMPFILE carries no O_CREAT and makes no name; linkat gives it one, and
// linkat is guarded, AT_EMPTY_PATH and /proc/self/fd/N forms alike.
//
// For each notification Supervise:
//
//  1. opens the thread (pidfd, /proc/TID/mem) and checks the notification
//     id is still valid, as for connect;
//  2. copies each path argument out of the target's memory once;
//  3. opens the directory the path starts from as the target sees it
//     (/proc/TID/cwd for AT_FDCWD, pidfd_getfd of a dirfd), then the
//     parent of the final component with O_PATH|O_DIRECTORY (intermediate
//     symlinks and ".." followed as the kernel follows them), reads the
//     parent's real path back from /proc/self/fd and joins the final name;
//     Paths into /proc are read as the target would: /proc/self,
//     /proc/thread-self and /proc/<a supervisor thread> name the target's
//     entry (so `> /dev/stdout` and `> /proc/self/fd/3` reach the
//     command's descriptors, and never the init's), and any other
//     process's /proc/<pid> entry is refused (EACCES): the supervisor may
//     read what the command may not;
//  4. for open without O_EXCL or O_NOFOLLOW, follows a final symlink as the
//     kernel would (again from the directory it holds, at most 40 hops),
//     and opens the last name with O_NOFOLLOW added, so a symlink swapped
//     in after the check fails with ELOOP instead of being followed;
//  5. asks Rules.Protected (and Rules.Encloses, for calls that bring
//     content: anything but mkdir) about the resulting path — for link and
//     rename about both sides: nothing lands on a protected path or on an
//     ancestor of one (a ".git" file or symlink redirects git elsewhere; a
//     renamed or exchanged directory brings its own hooks), and nothing
//     protected is renamed or linked away. Refused: EROFS, what the
//     read-only mounts give for existing protected paths, so the command
//     sees one error whether or not the path existed. Renaming an ancestor
//     away (mv .git .gitx) is allowed: a new .git/hooks is as refused;
//  6. performs the call itself, relative to the directory descriptors it
//     opened, with the names it checked: mkdirat, mknodat (regular files,
//     FIFOs and sockets; device nodes EPERM, as in any user namespace),
//     symlinkat, linkat, renameat2 with the caller's flags, or openat with
//     the caller's flags, whose descriptor it hands over with
//     SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9+; O_CLOEXEC becomes the new
//     descriptor's flag), closes its own copy, and only then completes the
//     call with its number — with SECCOMP_ADDFD_FLAG_SEND the command
//     resumed while the supervisor still held a writable descriptor, and
//     a script it had just written failed to execute (ETXTBSY). Anything else is answered with the result
//     or errno the kernel gave the supervisor.
//
// Why it is race-free: the kernel never re-reads the target's memory (the
// call is never continued), and each path is looked up once, into a
// descriptor; the check and the operation use that descriptor and the same
// final name, so rewriting the buffer, or swapping a directory or symlink
// after the check, changes nothing. The tests flip a path between okay.sh
// and .bashrc from a second thread; a check-then-continue supervisor (kept
// as a test-only mode) creates .bashrc, this one never does.
//
// Modes: the supervisor reads the thread's umask from /proc/TID/status and
// creates with mode &^ umask, after setting its own process umask to 0
// once, at the first creation it handles (umask is per process). The
// supervising process must therefore create no files of its own for any
// other purpose afterwards.
//
// What the caller must guarantee. The supervisor acts in the command's
// stead, so an operation it performs must be one the command could have
// performed: it runs in the sandbox init, which shares the command's mount
// namespace and root (chroot, pivot_root, mount and unshare are refused to
// the command, so they stay shared), user namespace, uid, gid, fsuid,
// fsgid and supplementary groups, and Landlock domain. Landlock is per
// thread before ABI 8, and the init restricts only the thread it forks
// the command from: its other threads, where the supervisor runs, are
// outside the domain. Then Rules.Confine must be set: each call the
// supervisor performs runs on a thread that Confine restricted once with
// the command's ruleset, kept for later calls and never handed back to
// the Go runtime (without it, only the mount view would bound what the
// supervisor does). From ABI 8 the init restricts every
// thread at once and Confine may stay nil. The init must hold no capability the command lacks
// while it supervises (CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_CHOWN, CAP_MKNOD,
// CAP_DAC_READ_SEARCH for AT_EMPTY_PATH before Linux 6.10, …), including in
// its effective set on every thread, and the same securebits; and the
// paths given to Rules must be named as this mount view names them,
// symlink-free (Protect takes such paths).
//
// # Protection by name (Rules.Names, Options.GuardWrite)
//
// Some names must not be written at any depth of a writable root, not only
// at the absolute paths Rules.Protected names: a nested repository's
// .git/config (core.fsmonitor runs on the user's next `git status` through
// a gitlink), .git/modules/*/config, .git/worktrees/*/commondir, a file
// named like a git hook anywhere (core.hooksPath can name any directory:
// .husky/pre-commit, .githooks/pre-commit), src/app/.ringfence.toml,
// .cursor/mcp.json, .envrc, … (policy.ProtectedNameTable, MatchProtectedName).
// With Rules.Names the supervisor asks NameGuard about the real path of
// every call it performs, and Options.GuardWrite also sends open and
// openat with O_WRONLY, O_RDWR or O_TRUNC (flags are a scalar: read-only
// opens stay in the kernel, free) and truncate(2). The calls are
// performed, never continued:
//
//   - a write-open is checked at the final, symlink-free name and opened
//     with O_NOFOLLOW added, as creations are; through a magic link
//     (/proc/self/fd/N) it is first opened O_PATH (no O_TRUNC yet), the
//     real path of that inode checked, and the inode reopened;
//   - truncate pins the inode (O_PATH, not followed again), checks it and
//     truncates it through /proc/self/fd;
//   - a link's source is pinned the same way (AT_SYMLINK_FOLLOW, an open
//     descriptor and /proc/self/fd/N all end at the checked inode) and
//     linked from the pin: a protected file gets no second, writable name;
//   - a rename's source is pinned to learn what moves: a file lands where
//     a file may; a directory or symlink may not land on a .git or in a
//     modules/ or worktrees/ tree (it would bring unchecked hooks and
//     config). If a directory was swapped in after the check, the
//     destination no longer holds the pinned inode: it is moved back and
//     the call refused. Protected names cannot be renamed away;
//   - names are not held under node_modules (packages ship .vscode/,
//     .husky/, hook-named scripts), so what is made there was never
//     judged: a directory or symlink may move within node_modules trees
//     but not out of them (mv node_modules deep would land deep/.envrc),
//     an exchange may not cross that border, and a symlink whose content
//     names a node_modules component is refused outside one. Left open: a
//     symlink through a dynamic magic link (/proc/self/cwd) that a host
//     tool resolves while its cwd is in node_modules;
//   - a file named HEAD is refused outside a .git tree, and a directory
//     may not move out of a .git's modules/ or worktrees/ tree: with
//     objects/ and refs/ beside it, a HEAD makes its directory a bare
//     repository to git's discovery (any git run in src/ would read
//     src/config: core.pager, aliases). `git init --bare` in a writable
//     root therefore fails; make bare repositories under $TMPDIR.
//
// Git must still work from nothing (init, commit, branch, stash, rebase,
// worktree add, remote add, config user.*). So: an empty directory may be
// made at any name (.git, hooks, .vscode: what lands inside is checked);
// in a hooks directory only names ending ".sample" (git never runs them);
// a git config or config.worktree lands only by renaming a regular file
// (git's config.lock) whose content passes checkGitConfig — a strict
// parser of git-config syntax and an allow-list of keys that name no
// program (core.repositoryformatversion, filemode, bare, …, user.*,
// remote.*.url without "::" transports, branch.*, submodule.*.url) — and
// is then written by the supervisor as a fresh file renamed into place,
// the source removed: a descriptor the command kept on config.lock
// writes to an unlinked inode. A ".git" file or a commondir is written by
// git with open+write+close, before its content is known: the command
// gets the write end of a pipe, and when it is closed the supervisor
// checks the content (a gitdir inside a guarded worktrees/ or modules/
// tree; a commondir leading to its own git directory, resolved physically)
// and only then installs a fresh file. Everything else under git's names:
// EROFS.
//
// A backend without mounts (landlock) also holds read-only and existing
// protected paths by path: Options.GuardRemove supervises unlink,
// unlinkat and rmdir (refused at or beneath Rules.Protected), GuardWrite
// covers write-opens and truncation, and Rules.KeepAncestors refuses
// renaming a directory that encloses one (its content would keep its
// inodes under an unprotected path).
//
// # Gaps
//
//   - Every sendmsg and sendmmsg takes a round trip through the
//     supervisor, destination or not (BenchmarkSendmsg, supervisor on
//     other threads as in the init: 1–2 µs bare, 85–106 µs supervised on
//     the shared 2-core VM at load average 9–12; through `ringfence run`
//     78–90 µs per sendmsg+recv against 0.9 µs for send+recv; expect
//     tens of µs on a quiet machine). Under GuardMeta each chmod, chown,
//     utimes or xattr change costs the same (landlock: 128 µs a chmod,
//     against 1.8 µs on the linux backend, same load).
//     Programs that send UDP with sendmsg at high rates (QUIC stacks) slow
//     down; write, send and sendto without an address are untouched.
//   - A supervised sendmsg carrying SCM_CREDENTIALS fails with EPERM (the
//     kernel checks the pid against the sender, now the supervisor);
//     SO_PASSCRED receivers see the supervisor's credentials.
//   - The peer check needs SO_PEERCRED, which only connected stream and
//     seqpacket sockets carry: a datagram sent to a socket file inside a
//     writable root that a host process bound still goes through. On the
//     landlock backend, a host listener whose pid was reused by a sandbox
//     process between its listen and our check would pass; sock_diag
//     reports only the low 32 bits of the socket file's inode.
//   - A supervised call interrupted by a signal is restarted by the
//     kernel while the supervisor may already have performed it: a send
//     or a metadata change can happen twice (connect then fails EISCONN).
//     A blocking send the target gave up on keeps one supervisor
//     goroutine until the socket drains or closes.
//   - GuardMeta judges a file by the one name its descriptor reports: a
//     workspace file hard-linked to a host file (made by the host, or
//     before) has both metadata changed, as writes to it change both.
//     utimensat(fd, NULL) on an O_PATH descriptor succeeds supervised
//     (the kernel says EBADF); l*xattr on a symlink is EPERM. Inode flags
//     set by ioctl (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR: chattr) are not
//     covered: immutable and append-only need CAP_LINUX_IMMUTABLE, which
//     the command lacks, but nodump, noatime and the like can still be set
//     on host files its user owns under the landlock backend.
//   - The peer of a supervised connection sees the supervisor's credentials
//     (SO_PEERCRED, SCM_CREDENTIALS), not the command's: the kernel records
//     the task that connects. Run the init as the command's uid where that
//     matters.
//   - A supervised sendto copies at most 1 MiB (larger: EMSGSIZE).
//   - Supervision needs Linux 5.7 (pidfd_getfd, TSYNC_ESRCH); before 6.9
//     (PIDFD_THREAD) only a process's main thread can be supervised, and
//     other threads' calls fail closed.
//   - Seccomp sees syscalls, not what they reach: /proc/PID/mem, files and
//     signals are Landlock's and the namespaces' to confine.
//   - Foreign-architecture binaries (i386 on amd64, arm32 on arm64) are
//     killed at their first syscall.
//   - Only amd64 and arm64 have filters; Build refuses the rest.
//   - Guarded creation, where the supervisor differs from the command: a
//     Landlock domain or seccomp filter the command adds to itself later
//     does not bind the supervisor (its own stricter filter's errno still
//     wins over our notification, but a self-imposed Landlock rule does
//     not apply to creations done for it); in a directory with a default
//     POSIX ACL the kernel would have used the ACL's mask instead of the
//     umask, the supervisor applies the umask (modes can come out
//     stricter, never looser); open of a FIFO or device that blocks ties
//     up one supervisor goroutine until it returns; if installing the
//     descriptor fails (the target is at RLIMIT_NOFILE) after a file was
//     created, the file stays and the call fails with EMFILE.
//   - A symlink met before the final component that leads into
//     /proc/self/cwd, /proc/self/root or /proc/self/fd/N (a directory),
//     rather than into /proc/self/fd itself, is followed from the
//     supervisor's side: the name is then made in the init's directory,
//     still checked and still bounded by the mounts and Confine.
//     Reopening another process's /proc/<pid>/fd/N with O_CREAT (e.g.
//     `> /proc/<pid>/fd/1`) fails with EACCES even where the kernel would
//     have let the command do it.
//   - bind(2) of a pathname unix socket also makes a name and is not
//     guarded: its address is behind a pointer, so every bind would have
//     to be supervised, and a socket node has no content to run (sourcing,
//     executing or reading it fails); it can only occupy the name.
//   - openat2 fails with ENOSYS (always, see "Set-id"); open_by_handle_at,
//     io_uring and mount are refused outright, so none of them reach a
//     name unchecked. Without GuardWrite, truncation and writes need an
//     existing file, which the read-only mounts cover; with it (name
//     protection) they are supervised.
//   - Protection by name: deleting (unlink, rmdir) is not supervised; a
//     hard link to a protected file made before the run is a writable
//     alias; a pointer file is written when its writer closes the pipe
//     (a reader racing that close sees it missing), and a program that
//     reads back or seeks its own .git file or commondir fails; a
//     write-open of /dev/tty opens the supervisor's terminal, not the
//     command's; each write-open costs a round trip
//     (BenchmarkGuardedWriteOpen: about 0.1 ms against 0.7 µs on a loaded
//     2-core machine; BenchmarkGitWork shows no difference beyond noise).
//   - The cost: each create (not each open) takes a round trip through
//     the supervisor; see BenchmarkGuardedCreate.
package seccomp
