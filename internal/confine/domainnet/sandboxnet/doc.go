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
package sandboxnet
