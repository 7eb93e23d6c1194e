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
//     root holding a carve-out (a protected or read-only path) is granted
//     per existing entry around it, and a readable tree holding a denied
//     path likewise (initproc.ExpandCarved). This protects carve-outs that
//     do not exist yet as well: their parent grants no right to create
//     them. The price: nothing can be created, renamed or removed directly
//     in a directory on the way to a carve-out — with the default
//     protected names, the workspace root itself (new files go in
//     subdirectories) and .git (git cannot write .git/index.lock); and
//     names beneath a directory on the way to a
//     denied path stay listable (contents do not).
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
//   - No private home layer (no mount namespace): home stays read-only.
//     With Request.Home, XDG_CACHE_HOME, GOCACHE, npm_config_cache,
//     YARN_CACHE_FOLDER and PIP_CACHE_DIR (those the caller did not set)
//     point at the workspace's private cache directory, which is granted
//     write; ringfence's other state is read-carved. GOMODCACHE stays the
//     host's, read-only (works offline for modules already there). Said
//     in Enforcement.Reasons.
//   - No mount path: the workspace shows at its real path (said in
//     Enforcement.Reasons).
package landlock
