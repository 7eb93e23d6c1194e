package sandboxnet

// Spec is the in-namespace side of `--network domains`: with it the
// sandbox's pid 1 (the linux init, or bwrap's exec shim), before dropping
// privileges, routes every destination to its own loopback (a `local`
// default route on lo, IPv4 and IPv6), listens for the explicit proxies
// (HTTP 127.0.0.1:3128, SOCKS5 127.0.0.1:1080), for transparent capture on
// netrule.CapturePorts (every address), and runs the DNS stub on
// 127.0.0.1:53 (UDP and TCP); each accepted connection is handed to the
// supervisor over the handoff socket.
type Spec struct {
	// CapturePorts overrides netrule.CapturePorts (tests); empty: those.
	CapturePorts []uint16 `json:"capturePorts,omitempty"`
}
