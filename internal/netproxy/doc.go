// Package netproxy is the policy proxy behind `--network domains`: every
// connection out of the sandbox is decided here, by name, once.
//
// The decisions themselves (rules, destinations, private addresses, the
// fake DNS, the handoff header) live in internal/netproxy/netrule, which
// the sandbox init links without net/http; every name is re-exported here
// (rules_alias.go), so this doc describes both.
//
// # What it decides
//
// Rules (ParseRule, ParseRules) are `host`, `host:port`, `*.suffix`
// (subdomains only, never the apex), a bracketed IPv6 or IPv4 address
// with an optional port, a CIDR, `*` (allow lists only: every name and
// every public address) and presets (`@go`, `@npm`, `@pypi`, …) that
// expand to their registries' hosts. Wildcards over a top-level domain or
// a known public suffix (*.com, *.co.uk, *.github.io) are refused. Deny
// always wins. Rules.Decide judges a Target before anything is resolved;
// Rules.CheckResolved judges the addresses a name resolved to: any address
// that reaches the host, the local network or a metadata service
// (Private: loopback, RFC 1918, CGNAT, link-local 169.254/16 and fe80::/10,
// ULA, unspecified, multicast, broadcast, reserved, and the same inside
// IPv4-mapped, NAT64 and 6to4 forms) refuses the name unless an allow
// rule names that address or a range holding it. An IP-literal target is
// allowed only by an address rule (or `*` for a public address).
//
// Destinations are parsed strictly (ParseAuthority, ParseHost): letters,
// digits, '-', '_' and dots, lower-cased, a trailing dot dropped, punycode
// only (no raw non-ASCII), bracketed IPv6 (never split on ':'), no
// whitespace, CR, LF, NUL or userinfo, RFC 1035 lengths, and no numeric
// form but a plain dotted quad (decimal, octal and hex forms are read
// differently by different resolvers).
//
// # What it enforces on a connection (Proxy)
//
// The proxy resolves a name itself, checks every address, and dials only
// an address it checked — no second lookup, so a name cannot answer
// public for the check and private for the dial (DNS rebinding). After
// an allowed CONNECT (or SOCKS5 request, or captured connection) it reads
// what the client sends first: a TLS ClientHello must carry an SNI naming
// the target or another allowed host (domain fronting is refused, as is a
// hello with two names); plain HTTP is proxied request by request and
// each Host must name the target; absolute-form requests (`GET
// http://host/`) must carry at most one Host header, naming the URL's
// host. A refusal is a 403 with `X-Proxy-Error: blocked-by-allowlist |
// blocked-by-denylist | private-address | sni-mismatch | host-mismatch |
// invalid-destination | declined-by-user`, a SOCKS5 "not allowed by
// ruleset" reply, or a reset for a captured connection. Every decision is
// reported (Event: host, port, rule, reason, bytes each way, duration) for
// the run's result and the audit trail. Ask holds a connection for a
// person's answer when no rule names the host (Rules.AskUnlisted).
//
// # Topology (the design this package serves)
//
// The proxy runs in the ringfence supervisor, outside the sandbox. The
// sandbox keeps its own network namespace with only `lo`; its init
// accepts connections on in-namespace listeners (HTTP proxy, SOCKS5,
// transparent capture) and hands each accepted socket to the supervisor
// over a socket pair (SCM_RIGHTS), so there is no host TCP port to find
// and the command holds no descriptor that reaches the proxy.
//
// The pieces of that topology here: AnswerDNS and FakeTable (the DNS
// stub: A gets a stable address from 198.18.0.0/15 per name, FNV-1a slot,
// never evicted, TTL 1; AAAA no records; every other type, class or
// opcode REFUSED; nothing is ever forwarded, so a TXT lookup cannot
// tunnel), Handoff (the header sent with each socket), Send and Session
// (the two ends of the socket pair; a Session bounds open connections and
// recorded decisions), ProxyEnv (the proxy variables the command gets).
// internal/confine/domainnet wires them to a sandbox, for the linux
// backend (its init) and the bwrap backend (its exec shim) alike.
//
// # Gaps
//
//   - The landlock backend has no network namespace: Local serves the
//     same Session from listeners on the host's loopback, and the
//     backend's seccomp supervisor lets the command's TCP sockets connect
//     only there (Landlock TCP rules name ports, not addresses). Nothing
//     is captured there: it is reported partial (internal/confine/landlock).
//   - The linux and bwrap backends run the domains network (bwrap only
//     when ringfence runs as root).
//   - The relay copies tunnels through a pooled buffer and splices large
//     plain-HTTP bodies (see copyRelay and writeResponse: each was the
//     cheaper per MB where measured); the extra hop through the sandbox's
//     loopback remains, and bench/network.sh puts proxied throughput at
//     60–98 % of direct on a loaded 2-core machine, short of the 80 %
//     target for plain HTTP.
//   - A direct connect to a port outside CapturePorts is refused by the
//     kernel (no listener) and is not reported: no process sees it.
//   - Asking a person (Proxy.Ask) reaches the tools' approval gate (MCP
//     elicitation) through ExecOptions.NetworkAsk; `ringfence run` has no
//     gate, so there unlisted hosts are blocked.
//   - The public-suffix check is a curated subset of the Public Suffix
//     List, not the whole list.
//   - Inside a TLS tunnel only the SNI is checked; what the encrypted
//     requests name is not visible (as for every non-intercepting proxy).
//   - A plain-HTTP tunnel that carries another protocol after its first
//     request is not re-parsed beyond HTTP framing.
package netproxy
