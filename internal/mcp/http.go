package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrTokenRequired refuses to serve HTTP on an address other machines can
// reach without a bearer token the person chose (a generated one is only
// for loopback: nobody else could be told it).
var ErrTokenRequired = errors.New("mcp: an explicit bearer token is required to listen on a non-loopback address")

// MinTokenLen is the shortest bearer token accepted: a token is the only
// thing between any local process and the sandbox's tools.
const MinTokenLen = 16

// CheckListen decides whether addr may be served: a loopback address
// (127.0.0.0/8, ::1, localhost) always (HTTPHandler still demands a
// token); any other — including an empty host or 0.0.0.0, which listen
// everywhere — only with a token the person gave explicitly.
func CheckListen(addr string, explicitToken bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("mcp: listen address %q: %w", addr, err)
	}
	if explicitToken || isLoopback(host) {
		return nil
	}
	return ErrTokenRequired
}

// Credential is one bearer token the HTTP server accepts. A session is
// bound to the credential that opened it: a request carrying the session's
// id with no token, or with another credential's, is refused (401 or 403).
type Credential struct {
	// Name identifies the credential (unique); it is the session's owner.
	Name string
	// Token is the bearer token, at least MinTokenLen bytes.
	Token string
	// Approver marks the person's credential: only sessions opened with it
	// are asked for approvals (elicitation). A session opened with any
	// other credential has no gate: what needs approval is not run. This
	// keeps the process that asks (an agent, or a command that reached the
	// server) from being the one that approves.
	Approver bool
}

// HTTPOptions configures HTTPHandler.
type HTTPOptions struct {
	// Credentials are the tokens accepted; at least one is required.
	Credentials []Credential
	// AllowHosts are Host header names accepted besides loopback ones
	// (localhost, 127.0.0.0/8, ::1): the names a non-loopback listener is
	// reached by. Anything else is refused 403 (DNS rebinding).
	AllowHosts []string
	// AllowOrigins are Origin values ("https://app.example:8443") accepted
	// besides the server's own ("http://" + the accepted Host). A request
	// with any other Origin is refused 403: a web page in the person's
	// browser must not drive the server.
	AllowOrigins []string
}

// The approver flag travels in the session's token info.
const approverKey = "ringfence.approver"

// HTTPHandler serves the streamable HTTP transport. Every request must
// name an accepted Host, carry no foreign Origin (else 403), and carry
// "Authorization: Bearer <token>" for one of the credentials (compared in
// constant time over SHA-256 digests; else 401) before the MCP layer sees
// it. Request bodies are bounded to DefaultMaxLine.
func (s *Server) HTTPHandler(o HTTPOptions) (http.Handler, error) {
	verify, err := verifier(o.Credentials)
	if err != nil {
		return nil, err
	}
	g, err := newGuard(o.AllowHosts, o.AllowOrigins)
	if err != nil {
		return nil, err
	}
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		MaxRequestBodyBytes: DefaultMaxLine,
		Logger:              s.cfg.Logger,
	})
	h = s.track(h)
	h = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	return g.wrap(h), nil
}

type digest = [sha256.Size]byte

// verifier checks a presented token against every credential, in constant
// time per credential and without stopping at a match, so the time taken
// says nothing about which token (or how much of one) was right.
func verifier(creds []Credential) (auth.TokenVerifier, error) {
	if len(creds) == 0 {
		return nil, errors.New("mcp: HTTP needs at least one bearer token")
	}
	type entry struct {
		sum digest
		c   Credential
	}
	entries := make([]entry, 0, len(creds))
	names, sums := map[string]bool{}, map[digest]bool{}
	for _, c := range creds {
		sum := sha256.Sum256([]byte(c.Token))
		switch {
		case c.Name == "" || names[c.Name]:
			return nil, fmt.Errorf("mcp: credential name %q is empty or repeated", c.Name)
		case len(c.Token) < MinTokenLen:
			return nil, fmt.Errorf("mcp: credential %q: a token needs at least %d characters", c.Name, MinTokenLen)
		case strings.ContainsAny(c.Token, " \t\r\n"):
			return nil, fmt.Errorf("mcp: credential %q: a token cannot contain white space", c.Name)
		case sums[sum]:
			// Two roles with one token would make the role a guess.
			return nil, fmt.Errorf("mcp: credential %q: its token is another credential's", c.Name)
		}
		names[c.Name], sums[sum] = true, true
		entries = append(entries, entry{sum, c})
	}
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		got := sha256.Sum256([]byte(token))
		match := -1
		for i, e := range entries {
			if subtle.ConstantTimeCompare(got[:], e.sum[:]) == 1 {
				match = i
			}
		}
		if match < 0 {
			return nil, fmt.Errorf("%w: send Authorization: Bearer <token>", auth.ErrInvalidToken)
		}
		c := entries[match].c
		return &auth.TokenInfo{UserID: c.Name, Extra: map[string]any{approverKey: c.Approver}}, nil
	}, nil
}

// credentialOf reads what HTTPHandler's verifier put in a request: the
// credential's name and whether it approves. viaHTTP is false for stdio
// and in-memory transports, whose client is the person's own.
func credentialOf(extra *sdk.RequestExtra) (name string, approver, viaHTTP bool) {
	if extra == nil {
		return "", false, false
	}
	viaHTTP = extra.Header != nil
	if ti := extra.TokenInfo; ti != nil {
		approver, _ = ti.Extra[approverKey].(bool)
		return ti.UserID, approver, viaHTTP
	}
	return "", false, viaHTTP
}

// nonceHeader carries, to the tool handler, the nonce of the HTTP request
// a call came in on. The server sets it on every request, overwriting
// whatever a client sent, so a client cannot name another's request.
const nonceHeader = "X-Ringfence-Request"

// track ties calls to their HTTP request: under protocol versions before
// 2026-07-28 the SDK runs a call apart from the request that carried it,
// so a client that drops its connection would leave its command running.
// A DELETE (the client ending its session) cancels the session's calls
// first — only when it carries the credential that owns the session: the
// SDK's session close waits for calls in flight.
func (s *Server) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			if id := r.Header.Get("Mcp-Session-Id"); id != "" {
				if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
					s.endSession(id, ti.UserID)
				}
			}
		}
		nonce := newID()
		r.Header.Set(nonceHeader, nonce)
		s.live.Store(nonce, r.Context())
		defer s.live.Delete(nonce)
		next.ServeHTTP(w, r)
	})
}
