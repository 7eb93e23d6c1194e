package mcp

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// guard refuses, before anything else reads a request, what a web browser
// could send on a page's behalf: a Host header that is not this server's
// (DNS rebinding: evil.example resolving to 127.0.0.1) and an Origin other
// than the server's own or one the person allowed (a cross-origin fetch).
// A browser cannot forge either header, so a page can neither reach the
// server under a name it controls nor read or send from another origin.
type guard struct {
	hosts   map[string]bool // lower-case names, besides loopback ones
	origins map[string]bool // normalised scheme://host[:port]
}

func newGuard(hosts, origins []string) (*guard, error) {
	g := &guard{hosts: map[string]bool{}, origins: map[string]bool{}}
	for _, h := range hosts {
		name := strings.ToLower(strings.Trim(h, "[]"))
		if name == "" || (strings.ContainsAny(name, "/:@*? ") && !isIP(name)) {
			return nil, fmt.Errorf("mcp: allowed host %q: name a host (or an address), without a port or a scheme", h)
		}
		g.hosts[name] = true
	}
	for _, o := range origins {
		n, ok := normOrigin(o)
		if !ok {
			return nil, fmt.Errorf("mcp: allowed origin %q: want scheme://host[:port], e.g. https://app.example", o)
		}
		g.origins[n] = true
	}
	return g, nil
}

func isIP(s string) bool { _, err := netip.ParseAddr(s); return err == nil }

func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostOK(r.Host) {
			http.Error(w, fmt.Sprintf("403 forbidden: Host %q is not this server's name (DNS rebinding?)", r.Host), http.StatusForbidden)
			return
		}
		if vs, sent := r.Header["Origin"]; sent && !g.originOK(vs, r.Host) {
			http.Error(w, "403 forbidden: cross-origin request (Origin not allowed; see --allow-origin)", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostOK accepts a loopback name or address, or an allowed name; the port
// is not judged (the connection already reached this listener).
func (g *guard) hostOK(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	return isLoopback(host) || (host != "" && g.hosts[host])
}

// originOK accepts exactly one Origin that is the server's own (the Host
// just accepted, over http) or an allowed one. "null", an empty value and
// a repeated header are refused.
func (g *guard) originOK(values []string, host string) bool {
	if len(values) != 1 {
		return false
	}
	n, ok := normOrigin(values[0])
	if !ok {
		return false
	}
	return n == "http://"+strings.ToLower(host) || g.origins[n]
}

// normOrigin reads an origin as scheme://host[:port], lower-cased, with
// nothing else (no path, query, user, or fragment).
func normOrigin(o string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(o, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// isLoopback: "localhost" or a loopback address (127.0.0.0/8, ::1, and
// their IPv4-mapped forms). Other names, even ones under .localhost, are
// not: they are what a rebinding attack would use.
func isLoopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
