// Package landlock is the backend for hosts without user namespaces (many
// containers; Ubuntu 24.04's AppArmor rule): the same init
// (internal/confine/initproc) with no namespace at all, confined by
// Landlock, seccomp, no_new_privs and dropped capabilities. It is
// reported Files partial, always, with the reasons.
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
//   - Host processes: Landlock's scopes (ABI 6) refuse signals to
//     processes outside the domain, its ptrace rule refuses tracing and
//     reading /proc/<pid>/environ, seccomp refuses ptrace.
//   - Kernel state, escalation, terminal injection, leaked descriptors and
//     environment: as for the linux backend (seccomp, no capabilities,
//     no_new_privs, a new session, close-on-exec).
//
// # Gaps (reported)
//
//   - A protected name made during the run (a nested repository's config)
//     can be deleted: removal is refused by path, not by name (deleting it
//     plants nothing, and `rm -rf` of a clone is ordinary work).
//   - Before Landlock ABI 8, host abstract unix sockets stay reachable:
//     they live in the host's network namespace, and the supervisor, which
//     connects on the command's behalf, cannot share the command's domain
//     (Network loopback-only under deny). From ABI 8 the whole init is one
//     domain and the scope holds.
//   - Tree kill is by process group; a descendant that calls setsid
//     escapes it (TreeKill process-group). The init is a subreaper, so
//     orphans are its own until it exits.
//   - /proc, /sys and /tmp are the host's (readable where the baseline
//     is); there is no private /tmp: the policy's TempDir is the scratch.
//   - A kernel without Landlock is unavailable (ABI 0): never a silent
//     fallback.
package landlock
