// Package sandboxnet is the in-sandbox half of `--network domains` (see
// internal/confine/domainnet, whose doc states the design and threat
// model): Serve brings lo up, routes every destination to it, binds the
// proxy, capture and DNS listeners and hands every accepted connection to
// the supervisor; Spec is what the init is told.
//
// It is its own package so that the sandbox init links it without
// domainnet's supervisor half, which imports internal/confine and the
// proxy (net/http, crypto/tls): the init is carried in every ringfence
// binary and copied into memory on every run (internal/confine/initimage,
// whose tests refuse an init that links those again). It imports only
// internal/netproxy/netrule for the decisions' data (fake DNS, handoff).
//
// For the same reason it does not use package net: the listeners are
// non-blocking sockets served through the runtime's poller by os.File
// (sock_linux.go), as package net serves them, so a waiting listener holds
// no thread; package net would add ≈220 KB (resolver, interfaces, address
// parsing) to a blob every run maps whole. The sockets are what net made:
// 127.0.0.1 for the proxies and the stub, a dual-stack [::] (IPV6_V6ONLY
// off, or 0.0.0.0 without IPv6) for capture, SO_REUSEADDR, accepted
// descriptors non-blocking and close-on-exec; the supervisor's
// net.FileConn sets TCP_NODELAY and keep-alive on each handed-over
// connection, as net's accept did.
package sandboxnet
