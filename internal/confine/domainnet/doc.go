// Package domainnet is the sandbox side of `--network domains`, shared by
// every backend that gives the command a network namespace of its own
// (linux: the init; bwrap: the exec shim). The decisions are package
// netproxy's; this package wires them to a sandbox.
//
// # The two halves
//
// Setup (supervisor, outside the sandbox): compiles the rules, makes a
// SEQPACKET socket pair and a resolv.conf naming the stub, and serves the
// connections handed over (netproxy.Serve) from the run's start to its
// cleanup, recording every decision (Cmd.NetEvents) — one code path for
// every backend, so the proxy, events, narration and asking a person
// are the same whichever backend confines.
//
// Serve (package sandboxnet, which the sandbox init links alone; in the
// sandbox's pid 1, before the command exists and while it holds
// CAP_NET_ADMIN and CAP_NET_BIND_SERVICE in the namespace): brings lo up, adds `local` default routes on lo (every
// destination is the namespace's own, so a connect anywhere lands on a
// capture listener or is refused at once; no packet has another
// interface to leave by), binds the HTTP proxy (127.0.0.1:3128), SOCKS5
// (127.0.0.1:1080), the capture listeners (netproxy.CapturePorts, every
// address) and the DNS stub (127.0.0.1:53, UDP and TCP, fake addresses,
// nothing forwarded), and hands every accepted socket with a header
// (netproxy.Handoff) to the supervisor. The caller then drops every
// capability and the listeners keep serving from goroutines that need
// none.
//
// # Threat model
//
// The command is hostile and shares the namespace with the listeners. It
// cannot reach the supervisor except through a listener (the handoff
// socket is close-on-exec, held only by the non-dumpable pid 1), cannot
// change the routes (no CAP_NET_ADMIN after the drop), cannot send a
// packet anywhere but lo (there is no other interface), and every TCP
// connect to a captured port is decided by name by the proxy. What each
// backend adds (AF_VSOCK refused, raw and packet sockets useless without
// an interface) is its own.
//
// # Gaps
//
//   - A connect to a port outside CapturePorts is refused by the kernel
//     (no listener) and not reported: no process sees it.
//   - The listeners run in pid 1: a flood of connections costs pid 1
//     memory (bounded by debug.SetMemoryLimit and the supervisor's
//     netproxy.MaxConns), not the host's.
package domainnet
