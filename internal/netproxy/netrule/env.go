package netrule

import (
	"strconv"
	"strings"
)

// In-namespace listener ports. The HTTP proxy and SOCKS5 listen on
// 127.0.0.1 only; the DNS stub on 127.0.0.1:53 (UDP and TCP).
const (
	HTTPPort  = 3128
	SOCKSPort = 1080
	DNSPort   = 53
)

// CapturePorts are the ports transparent capture listens on (every
// address, IPv4 and IPv6): ssh (22), the web (80, 443) and git (9418) —
// what registries, git remotes and the JVM's fetches use. Deliberately
// not the usual dev-server ports (3000, 8000, 8080…): a capture listener
// holds its port on every address, so a test suite could no longer bind
// its own server there. A direct connect to any other port is refused by
// the kernel at once (connection refused): there is no listener, and the
// local default route means nothing leaves. Such attempts are not
// reported (no listener sees them) — see the package's gaps.
var CapturePorts = []uint16{22, 80, 443, 9418}

// ProxyEnv is the environment that points clients at the in-namespace
// proxies, upper and lower case where tools differ (curl reads only
// lowercase http_proxy; Go, Python, git and npm read either). GOPROXY is
// left alone: Go's module fetches honour HTTPS_PROXY. NO_PROXY keeps the
// sandbox's own loopback direct (its own servers).
func ProxyEnv() []string { return ProxyEnvAt(HTTPPort, SOCKSPort) }

// ProxyEnvAt is ProxyEnv for proxies on 127.0.0.1 at other ports (the
// landlock backend's, on ephemeral ports of the host's loopback).
func ProxyEnvAt(httpPort, socksPort uint16) []string {
	httpURL := "http://127.0.0.1:" + strconv.Itoa(int(httpPort))
	socksURL := "socks5h://127.0.0.1:" + strconv.Itoa(int(socksPort))
	noProxy := "localhost,127.0.0.1,::1"
	var out []string
	for _, kv := range [][2]string{
		{"HTTP_PROXY", httpURL}, {"HTTPS_PROXY", httpURL}, {"ALL_PROXY", socksURL}, {"NO_PROXY", noProxy},
	} {
		out = append(out, kv[0]+"="+kv[1], strings.ToLower(kv[0])+"="+kv[1])
	}
	return append(out,
		"npm_config_proxy="+httpURL, "npm_config_https_proxy="+httpURL,
		"YARN_HTTP_PROXY="+httpURL, "YARN_HTTPS_PROXY="+httpURL,
		"PIP_PROXY="+httpURL,
	)
}

// WithProxyEnv returns env with ProxyEnv's variables set (replacing any
// the caller had: a command's own proxy setting would only send traffic to
// an address that leads nowhere).
func WithProxyEnv(env []string) []string { return withEnv(env, ProxyEnv()) }

// WithProxyEnvAt is WithProxyEnv for proxies at other ports (ProxyEnvAt).
func WithProxyEnvAt(env []string, httpPort, socksPort uint16) []string {
	return withEnv(env, ProxyEnvAt(httpPort, socksPort))
}

func withEnv(env, set []string) []string {
	names := map[string]bool{}
	for _, kv := range set {
		n, _, _ := strings.Cut(kv, "=")
		names[n] = true
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		n, _, _ := strings.Cut(kv, "=")
		if !names[n] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}
