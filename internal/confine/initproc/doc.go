// Package initproc is the sandbox init shared by the linux and landlock
// backends: the ringfence binary re-executed as `ringfence __confine`,
// which confines itself and then starts the command as its child.
//
// # How it is started
//
// A backend builds a Spec and calls NewCmd. The spec (argv, working
// directory, environment, mount plan, Landlock rules, seccomp options)
// travels on an inherited pipe (descriptor 3), written by Cmd.Setup once
// the supervisor has placed the init in its cgroup; never on the command
// line or in the environment, where the command or a host ps could read
// it. The status channel (internal/status) is descriptor 4, close-on-exec,
// so only the init can write it. Every binary that confines calls
//
//	if initproc.IsInit() { initproc.Main() }
//
// first thing in main (or TestMain).
//
// # What the init does, in order
//
//  1. Marks every inherited descriptor above 4 close-on-exec (a leaked
//     canary, an agent socket never reaches the command).
//  2. With a View (linux backend, as uid 0.. of its own user namespace):
//     makes every mount private, clones the bind sources, builds the view
//     on a detached copy of the host root set read-only, nosuid, nodev
//     (or on an empty tmpfs under an allow-list baseline), applies the ops
//     in order (writable roots bound read-write, read-only and protected
//     carve-outs bound read-only over them, denied paths masked by an
//     empty mode-000 tmpfs or a no-dev /dev/null, fresh /proc, minimal
//     /dev, private /tmp), pins every directory between a root and a
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
//     the supervisor on HandoffFD (netproxy.Send).
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
//     namespace; unix-socket connects are supervised by the init.
//  7. Forks and executes the command from that thread (it inherits all of
//     the above), reports "started" or a "failed" with not-found or
//     not-executable (exec errors come back synchronously from ForkExec,
//     so a missing program is never confused with a command exiting 127),
//     forwards SIGTERM/INT/HUP/QUIT/USR1/USR2, reaps every orphan, and on
//     the command's exit writes "exited" and exits with its code
//     (128+signal when killed). As pid 1 of a pid namespace, its exit
//     kills every remaining descendant.
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
// Before ABI 8 the supervisor's connects on the command's behalf are not
// subject to Landlock's scope: host abstract unix sockets are reachable
// where no network namespace hides them (see the backends' reports). Pre-existing hard links to a denied file from a
// readable place are readable (mounts and Landlock are path-based).
package initproc
