// Package pid1 makes ringfence a correct pid 1 when it is a container's
// entrypoint (`podman run … /bin/ringfence run …`, a pod running
// `ringfence serve` or `ringfence mcp`).
//
// # Why
//
// Pid 1 of a pid namespace has duties no other process has: every orphan
// in the namespace is re-parented to it and stays a zombie until it reaps
// it, and the kernel delivers it only the signals it has a handler for.
// ringfence's supervisor reaps only the children it started (os/exec waits
// for one pid; a wait for any child would steal their statuses), so as
// pid 1 the container would fill with zombies.
//
// # What it does
//
// Main, called by the CLI when os.Getpid() == 1 (and after the hidden entry
// points, which are pid 1 of their own sandboxes and know it), re-executes
// the same binary with the same arguments, environment and standard
// streams as its only child, like tini or dumb-init:
//
//   - it reaps every process that ends up its child (orphans of the whole
//     container included) and exits with the child's status, 128+N when
//     signal N ended it (as a shell and the container runtimes report it);
//   - every signal it receives but SIGCHLD and the Go runtime's own
//     (SIGURG, SIGPROF) is passed to the child, so the runtime's SIGTERM on
//     `stop` reaches `ringfence run`, which stops the confined tree
//     (SIGTERM, SIGKILL --kill-after later) and exits 143;
//   - when it exits, the kernel ends whatever is left in the namespace.
//
// The child has no parent-death signal: pid 1's death already kills every
// process in the namespace, and a parent-death signal follows the thread
// that forked, which the Go runtime may retire at any time (that would be
// a false kill).
//
// Decisions (which signals pass, what status a wait status maps to) are
// pure functions, table-tested; the loop is tested in a real container by
// internal/containertest.
//
// # Gaps
//
// On a terminal, a Ctrl-C reaches both pid 1 (which passes it on) and the
// child (same foreground group): the child sees SIGINT twice; `ringfence
// run` acts on the first and swallows the rest. Descriptors above 2 are
// not passed to the child (socket activation is not supported as pid 1).
package pid1
