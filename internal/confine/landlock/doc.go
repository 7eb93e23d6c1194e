// Package landlock is the backend for hosts without user namespaces (many
// containers; Ubuntu 24.04's AppArmor rule): the same init
// (internal/confine/initproc) with no namespace at all, confined by
// Landlock, seccomp, no_new_privs and dropped capabilities. It is
// reported Files partial, always, with the reasons.
//
// Its rules and the guard's lists are translated from the one view plan
// (internal/confine/viewplan: roots, carve-outs split into explicit
// read-only, denied and generated protected, hidden and reopened paths);
// NewPlan derives nothing of its own. Confine builds that view plan once
// per run and hands it to the plan, the kept protected paths and the
// enforcement report (TestPlanGolden checks the shared path against the
// exported functions).
//
// # What holds
//
//   - Writes outside the writable roots, reads of denied paths: Landlock.
//     Landlock grants are unions over ancestors and cannot subtract, so a
//     root holding a denied path is granted per existing entry around it,
//     and a readable tree holding one likewise (initproc.ExpandCarved);
//     nothing can then be created, renamed or removed directly in a
//     directory on the way to one, and names beneath a directory on the
//     way to a denied path stay listable (contents do not).
//   - Protected paths (generated: .git/hooks, .bashrc, …, and names at any
//     depth) and read-only paths: the seccomp guard, not Landlock, so the
//     workspace root and .git keep taking new files and git works. Every
//     creation, write-open, truncation, link and rename is performed by
//     the init's supervisor, which refuses protected names (seccomp
//     Rules.Names) and, by path (Rules.Protected, with unlink and rmdir
//     supervised and their directories kept in place: GuardRemove), the
//     read-only paths, the protected paths that exist when the run starts
//     (KeepExisting) and generated ones no name covers. Before ABI 8 the
//     supervisor's threads are outside the command's domain, so each call
//     it performs runs on a fresh thread that first takes the command's
//     Landlock ruleset (Seccomp.ConfineGuard, seccomp Rules.Confine): what
//     it does for the command is bounded as the command is (the attack
//     suite's write-outside cases go through it).
//   - Network under deny and loopback: seccomp refuses every socket family
//     but AF_UNIX (no network namespace can hold a loopback apart, so
//     loopback is refused too), Landlock handles TCP (and UDP from ABI
//     10) with no port allowed; host unix sockets by path: the seccomp
//     supervisor.
//   - Network under domains (reported partial: a program that ignores the
//     proxy variables is refused, not captured — there is no namespace to
//     capture in): the policy proxy listens on the host's 127.0.0.1 at two
//     ephemeral ports (HTTP and SOCKS5, netproxy.Local, in ringfence,
//     outside the sandbox) and decides each connection by name with the
//     linux backend's code; the command gets the proxy variables
//     (netproxy.ProxyEnvAt). Seccomp allows only unix and TCP sockets
//     (initproc.ProxyInetFilter: no UDP, so no DNS, QUIC or DNS tunnels;
//     no raw, packet, ICMP, SCTP, netlink, and no MPTCP, which Landlock's
//     TCP rules do not cover; vsock is EAFNOSUPPORT as ever). Every IP
//     connect, and sendto/sendmsg naming an address (TCP Fast Open), goes
//     to the init's supervisor, which reads the address once and connects
//     the command's own socket (pidfd_getfd) itself, only to 127.0.0.1 at
//     a proxy port (::1 and the v4-mapped form are reached as 127.0.0.1),
//     to an address it built, never re-reading the command's memory: a
//     thread rewriting the sockaddr mid-call changes nothing (the attack
//     test flips it thousands of times). Non-blocking connects keep their
//     semantics (the socket's O_NONBLOCK is shared: EINPROGRESS, then
//     SO_ERROR). The connect runs on a supervisor thread inside the
//     command's Landlock domain, whose TCP rules allow connecting only to
//     the two ports and binding none: a second wall that, alone, would
//     let an evil host at the proxy's port through (the rules name ports,
//     not addresses) — the supervisor does not. listen(2) on an IP socket
//     is refused (seccomp GuardListen): binding port 0, or listen's
//     implicit bind, escapes Landlock's bind rule and would accept
//     connections from the host's network.
//   - Host processes, and the init: the command runs in a Landlock
//     domain of its own (initproc Spec.Nest, ABI 6+), nested in the
//     init's and scoped, so no signal reaches a process outside it — the
//     init included: the command cannot stop, kill or crash its init, nor
//     fake its parent-death signal. Landlock's ptrace rule refuses tracing
//     and reading /proc/<pid>/environ, seccomp refuses ptrace.
//   - Tree teardown: the init is a child subreaper the command cannot
//     signal; it ends every descendant (setsid'd daemons included) when
//     the command ends and on its parent-death signal, so a SIGKILLed
//     ringfence leaves nothing running.
//   - Every run's Enforcement.Reasons begins with what stays out of reach
//     ("out of reach: …"); doctor says the same per feature.
//   - Kernel state, escalation, terminal injection, leaked descriptors and
//     environment: as for the linux backend (seccomp, no capabilities,
//     no_new_privs, a new session, close-on-exec).
//   - Metadata: Landlock (ABI ≤ 7) has no right for chmod, chown, utimes
//     or xattrs, and there is no read-only mount view, so seccomp's
//     GuardMeta sends every such call to the init, which performs it only
//     inside the writable roots and outside the explicit carve-outs (by
//     the real path of the descriptor it opened once; see package
//     seccomp). Set-id bits and set-id creation modes are refused
//     everywhere, file capabilities and foreign owners by the missing
//     capabilities (the attack suite proves each as root).
//   - AF_VSOCK: refused by seccomp whatever the network mode.
//   - Unix datagrams to host sockets (sendmsg, sendmmsg, sendto with an
//     address) are supervised as connects are; a socket file in the
//     workspace that a host process listens on is refused to connect
//     unless the policy names it (its listener does not descend from the
//     init, which is a subreaper).
//
// # Gaps (reported)
//
//   - A protected name made during the run (a nested repository's config)
//     can be deleted: removal is refused by path, not by name (deleting it
//     plants nothing, and `rm -rf` of a clone is ordinary work).
//   - Host abstract unix sockets live in the host's network namespace,
//     which this backend shares. The command's own scoped domain refuses
//     them, but the init's supervisor connects on the command's behalf
//     from outside that domain; it therefore refuses a listener that is
//     not the sandbox's own (Seccomp.PeerCheckAbstract, SO_PEERCRED), and
//     every datagram connect or send to an abstract address (no peer to
//     check). A sandbox program's own abstract datagram sockets fail.
//   - Tree kill without the init: ringfence's own sweep is by process
//     group (TreeKill process-group) plus the cgroup census where limits
//     apply. If the init itself dies by something other than a signal
//     (out of memory, no pid left for its runtime's threads) and
//     ringfence dies too, a daemon can survive. Before Landlock ABI 6 the
//     command can stop its init (no scopes to nest).
//   - /proc, /sys and /tmp are the host's (readable where the baseline
//     is); there is no private /tmp: the policy's TempDir is the scratch.
//   - A kernel without Landlock is unavailable (ABI 0): never a silent
//     fallback.
//   - Metadata of a workspace file hard-linked to a host file changes on
//     both names (as writes to it do); a datagram (not a connect) to a
//     host-bound socket inside the workspace is not told from the
//     command's own (package seccomp's gaps).
//   - No private home layer (no mount namespace): home stays read-only.
//     With Request.Home, XDG_CACHE_HOME, GOCACHE, npm_config_cache,
//     YARN_CACHE_FOLDER and PIP_CACHE_DIR (those the caller did not set)
//     point at the workspace's private cache directory, which is granted
//     write; ringfence's other state is read-carved. GOMODCACHE stays the
//     host's, read-only (works offline for modules already there). Said
//     in Enforcement.Reasons.
//   - No mount path: the workspace shows at its real path (said in
//     Enforcement.Reasons).
//   - Domains: the proxy's loopback ports are open to every process on
//     the host, which then gets what the sandbox's policy allows (it
//     reaches the network anyway) and shows in the run's decisions. The
//     command cannot reach its own loopback servers over TCP (NO_PROXY
//     sends loopback direct, as on linux, and a direct connect is
//     refused); unix sockets work. Refused direct connects are not
//     decisions of the proxy: they are told from the program's own error
//     (outcome NetworkProxyOnly), not from an event. A supervised listen
//     on a unix socket is performed by the init, so that socket's
//     SO_PEERCRED names the init (same uid).
package landlock
