package outcome

import (
	"net"
	"strings"
	"unicode"
)

// Network modes a run can be refused by, as Evidence.Network names them.
// Only these two deny anything a command could otherwise reach by itself:
// under allow-all nothing is refused, and under domains the policy proxy
// reports its own refusals.
const (
	NetworkDeny     = "deny"     // the command's namespace has no network at all, not even loopback
	NetworkLoopback = "loopback" // only the namespace's own loopback
	// NetworkProxyOnly: the domains network on a backend without a
	// network namespace (landlock). Only the policy proxy, reached through
	// the proxy variables, leads out; every direct connection and name
	// lookup is refused, so a failed one is a program that ignored them.
	NetworkProxyOnly = "domains-proxy-only"
)

// ReasonNetworkDenied is the violation reason of a connection or a name
// lookup the sandbox's network mode refused.
const ReasonNetworkDenied = "network-denied"

// netFailure is one shape in which a tool says a lookup or a connection
// failed. Each marker is matched against the lowered line; target, when
// set, finds the host or address the message names after the marker.
type netFailure struct {
	marker string
	lookup bool // a name lookup, not a connection
	// refused: a connection refused. Inside a namespace with a loopback,
	// a refusal means nothing listens there: the command's own matter.
	refused bool
	target  func(orig, lower string, at int) string
	// needTarget: the marker is a common word ("lookup", "dial tcp") and
	// counts only where a target follows it in the tool's own shape.
	needTarget bool
}

// netFailures are the dialects of the tools agents run, as they print them
// when the network is missing (captured from the real tools inside the
// sandbox: see TestNetworkDialectsCaptured). Order matters: the first
// marker found on a line decides it, so the shapes that name a target come
// before the bare errno texts.
var netFailures = []netFailure{
	// curl, git (libcurl): "Could not resolve host: example.com"
	{marker: "could not resolve host: ", lookup: true, target: wordAfter},
	// ssh: "Could not resolve hostname github.com: Temporary failure …"
	{marker: "could not resolve hostname ", lookup: true, target: wordAfter},
	// wget: "unable to resolve host address ‘example.com’"
	{marker: "unable to resolve host address ", lookup: true, target: wordAfter},
	// Node, npm: "getaddrinfo ENOTFOUND registry.npmjs.org", "getaddrinfo EAI_AGAIN x"
	{marker: "getaddrinfo enotfound ", lookup: true, target: wordAfter},
	{marker: "getaddrinfo eai_again ", lookup: true, target: wordAfter},
	// Go: "dial tcp: lookup example.com on 10.0.0.53:53: …", "lookup x: no such host"
	{marker: "lookup ", lookup: true, target: goLookup, needTarget: true},
	// Python, pip, glibc: the resolver's own texts, which name no host
	{marker: "temporary failure in name resolution", lookup: true},
	{marker: "name or service not known", lookup: true},
	{marker: "no address associated with hostname", lookup: true},
	// Node: "connect ENETUNREACH 1.1.1.1:80", "connect ECONNREFUSED 127.0.0.1:9"
	{marker: "connect enetunreach ", target: wordAfter},
	{marker: "connect ehostunreach ", target: wordAfter},
	{marker: "connect econnrefused ", refused: true, target: wordAfter},
	// Node under Landlock, which refuses the connect itself: "connect EACCES 1.1.1.1:80"
	{marker: "connect eacces ", target: wordAfter},
	{marker: "connect eperm ", target: wordAfter},
	// Go: "dial tcp 1.1.1.1:80: connect: network is unreachable"
	{marker: "dial tcp ", target: goDial, needTarget: true},
	{marker: "dial udp ", target: goDial, needTarget: true},
	// curl: "Failed to connect to 1.1.1.1 port 80 after 0 ms: Couldn't connect to server"
	{marker: "failed to connect to ", target: wordAfter},
	// Python's urllib under Landlock, which refuses the connect itself
	{marker: "<urlopen error [errno 13] permission denied>"},
	{marker: "<urlopen error [errno 1] operation not permitted>"},
	// Python, the C library: errno texts with no target. A bare
	// "connection refused" is not among them: with no target it cannot be
	// told from a unix socket or a loopback server that is not listening.
	{marker: "network is unreachable"},
	{marker: "no route to host"},
}

// networkDenied records, as violations, the lines that say a lookup or a
// connection failed because the run's network mode refused it; mode is
// NetworkDeny, NetworkLoopback or "" (nothing was denied: never a match).
func networkDenied(r *ExecClass, mode, backend string, stderr stderrText) bool {
	if !deniesNetwork(mode) {
		return false
	}
	found := false
	for line, lower := range stderr.lines() {
		target, ok := netRefusal(line, lower, mode)
		if !ok {
			continue
		}
		if r.Evidence == "" {
			r.Evidence = cutUTF8(line, maxEvidence)
		}
		found = true
		r.Violations = dedupe(r.Violations, Violation{
			Backend: backend, Reason: ReasonNetworkDenied, Target: cutUTF8(target, maxQuoted),
			Snippet: oneLine(cutUTF8(line, maxSnippet)),
		})
		if len(r.Violations) >= MaxViolations {
			break
		}
	}
	if found {
		r.Network = mode
	}
	return found
}

// netRefusal decides one line: does it say the network mode refused
// something, and what (the target, "" when the message names none)?
//
// Under deny the namespace has no usable interface, so every failed
// lookup or connection is the sandbox's doing. Under loopback only what
// leaves the loopback is: a lookup of a name other than localhost (the
// resolver is beyond it), a connection to a non-loopback address, or an
// unreachable network (loopback itself is always reachable). A refused
// connection to loopback — or one naming no target — is a server that is
// not listening, the command's own matter.
func netRefusal(orig, lower, mode string) (string, bool) {
	if !deniesNetwork(mode) {
		return "", false
	}
	for _, f := range netFailures {
		at := strings.Index(lower, f.marker)
		if at < 0 {
			continue
		}
		target := ""
		if f.target != nil {
			target = f.target(orig, lower, at+len(f.marker))
		}
		if f.needTarget && target == "" {
			continue
		}
		switch {
		case f.refused:
			return target, target != "" && !isLoopback(target)
		case mode == NetworkDeny || mode == NetworkProxyOnly:
			// Nothing but the proxy is reachable: every failure is ours.
			return target, true
		case target != "":
			return target, !isLoopback(target)
		}
		return "", true // loopback: a lookup beyond it, or an unreachable network
	}
	return "", false
}

// deniesNetwork: the modes under which a failed lookup or connection can
// be the sandbox's refusal.
func deniesNetwork(mode string) bool {
	return mode == NetworkDeny || mode == NetworkLoopback || mode == NetworkProxyOnly
}

// wordAfter is the word that starts at i: up to a space or a character no
// host name or address contains, with quotes and trailing colons dropped.
func wordAfter(orig, _ string, i int) string {
	if i > len(orig) {
		return ""
	}
	s := strings.TrimLeft(orig[i:], " '\"‘“`")
	end := strings.IndexFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || unicode.IsSpace(r) || strings.ContainsRune(",;()<>'\"’”`", r)
	})
	if end >= 0 {
		s = s[:end]
	}
	return strings.TrimRight(s, ":.")
}

// goLookup reads Go's "lookup HOST on SERVER: …" and "lookup HOST: …";
// "lookup" in any other sentence names no target.
func goLookup(orig, lower string, i int) string {
	w := wordAfter(orig, lower, i)
	rest := lower[min(i+len(w), len(lower)):]
	if w == "" || strings.ContainsAny(w, "/=") || !(strings.HasPrefix(rest, " on ") || strings.HasPrefix(rest, ":")) {
		return ""
	}
	return w
}

// goDial reads Go's "dial tcp ADDR: connect: …"; "dial tcp: lookup …"
// names no address here (the lookup shape decides it).
func goDial(orig, lower string, i int) string {
	w := wordAfter(orig, lower, i)
	if !strings.HasPrefix(lower[min(i+len(w), len(lower)):], ":") {
		return "" // the address is always followed by ": connect: …" or ": i/o timeout"
	}
	return w
}

// isLoopback says whether a target (a name, an address, or either with a
// port) stays on the loopback: localhost and its subdomains, 127/8, ::1,
// and the unspecified address, which the kernel connects to locally.
func isLoopback(target string) bool {
	host := target
	if h, _, err := net.SplitHostPort(target); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback() || ip.IsUnspecified()
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
