package domainnet

// Spec is the in-namespace side of `--network domains`: with it the
// sandbox's pid 1 (the linux init, or bwrap's exec shim), before dropping
// privileges, routes every destination to its own loopback (a `local`
// default route on lo, IPv4 and IPv6), listens for the explicit proxies
// (HTTP 127.0.0.1:3128, SOCKS5 127.0.0.1:1080), for transparent capture on
// netproxy.CapturePorts (every address), and runs the DNS stub on
// 127.0.0.1:53 (UDP and TCP); each accepted connection is handed to the
// supervisor over the handoff socket.
type Spec struct {
	// CapturePorts overrides netproxy.CapturePorts (tests); empty: those.
	CapturePorts []uint16 `json:"capturePorts,omitempty"`
}

// ResolvConf names the in-namespace DNS stub; every backend binds it over
// /etc/resolv.conf in the view. One attempt and a short timeout: the stub
// answers at once or not at all. single-request makes glibc ask A and
// AAAA one after the other with send(2) rather than together with
// sendmmsg(2): the stub answers locally, so it costs nothing, and under
// the bwrap shim's supervision a supervised sendmmsg fails (the shim
// cannot store msg_len back: /proc is read-only there and bwrap's filter
// refuses process_vm_writev), which glibc reports as a temporary
// resolution failure.
const ResolvConf = "# ringfence: the sandbox's DNS stub (names are decided by the proxy)\nnameserver 127.0.0.1\noptions timeout:1 attempts:1 single-request\n"
