package initproc

// HandoffFD is the init's end of the handoff socket pair (ExtraFiles[2])
// when Spec.Proxy is set: a SEQPACKET socket over which every connection
// the in-namespace listeners accept goes to the supervisor's policy proxy.
// Close-on-exec like every inherited descriptor above StatusFD, so the
// command never holds it.
const HandoffFD = 5

// ProxySpec is the in-namespace side of `--network domains`: with it the
// init, before dropping privileges, routes every destination to its own
// loopback (a `local` default route on lo, IPv4 and IPv6), listens for
// the explicit proxies (HTTP 127.0.0.1:3128, SOCKS5 127.0.0.1:1080), for
// transparent capture on netproxy.CapturePorts (every address), and runs
// the DNS stub on 127.0.0.1:53 (UDP and TCP); each accepted connection is
// handed over on HandoffFD.
type ProxySpec struct {
	// CapturePorts overrides netproxy.CapturePorts (tests); empty: those.
	CapturePorts []uint16 `json:"capturePorts,omitempty"`
}
