package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrTokenRequired refuses to serve HTTP on an address other machines can
// reach without a bearer token.
var ErrTokenRequired = errors.New("mcp: a bearer token is required to listen on a non-loopback address")

// CheckListen decides whether addr may be served with this token: a
// loopback address (127.0.0.0/8, ::1, localhost) always; any other —
// including an empty host or 0.0.0.0, which listen everywhere — only with
// a token.
func CheckListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp: listen address %q: %w", addr, err)
	}
	if token != "" || isLoopback(host) {
		return nil
	}
	return ErrTokenRequired
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// HTTPHandler serves the streamable HTTP transport. With a token, every
// request must carry "Authorization: Bearer <token>" (compared in constant
// time) or gets 401 before the MCP layer sees it. Request bodies are
// bounded to DefaultMaxLine.
func (s *Server) HTTPHandler(token string) http.Handler {
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		MaxRequestBodyBytes: DefaultMaxLine,
		Logger:              s.cfg.Logger,
	})
	h = s.track(h)
	if token == "" {
		return h
	}
	return bearer(token, h)
}

// nonceHeader carries, to the tool handler, the nonce of the HTTP request
// a call came in on. The server sets it on every request, overwriting
// whatever a client sent, so a client cannot name another's request.
const nonceHeader = "X-Ringfence-Request"

// track ties calls to their HTTP request: under protocol versions before
// 2026-07-28 the SDK runs a call apart from the request that carried it,
// so a client that drops its connection would leave its command running.
// A DELETE (the client ending its session) cancels the session's calls
// first: the SDK's session close waits for calls in flight.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			if id := r.Header.Get("Mcp-Session-Id"); id != "" {
				s.endSession(id)
			}
		}
		nonce := newID()
		r.Header.Set(nonceHeader, nonce)
		s.live.Store(nonce, r.Context())
		defer s.live.Delete(nonce)
		next.ServeHTTP(w, r)
	})
}

func bearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ringfence"`)
			http.Error(w, "401 unauthorized: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
