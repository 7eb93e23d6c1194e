package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Resolver resolves names for the proxy; *net.Resolver satisfies it.
// Tests inject one that answers for their own test network.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Event is one decided connection, for the run's result and the audit
// trail: where it went, what decided, and how much it carried.
type Event struct {
	Via      string // "http", "connect", "socks5" or "captured"
	Host     string
	Port     uint16
	Verdict  Verdict
	Rule     string
	Reason   string // for a denial: one of the Reason* constants
	Why      string
	Up, Down int64 // bytes client→server, server→client
	Duration time.Duration
}

// Proxy makes one decision per connection and relays what it allows. It
// runs outside the sandbox; the sandbox reaches it only through
// connections handed over by its init. Its fields are set before use and
// not changed after.
type Proxy struct {
	Rules    Rules
	Resolver Resolver
	// Dial dials a checked address; nil is a net.Dialer with a 10 s timeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Ask puts an unlisted host to a person (Rules.AskUnlisted); nil or an
	// error is a denial. It should return within the context's deadline.
	Ask func(ctx context.Context, t Target) (Verdict, error)
	// AskTimeout bounds how long a connection is held for an answer.
	AskTimeout time.Duration
	// Report receives every decision (may be nil).
	Report func(Event)
}

// errDenied carries a denial out of open.
type errDenied struct{ d Decision }

func (e *errDenied) Error() string { return "denied: " + e.d.Reason }

// open decides a target and, if allowed, dials it: a name is resolved
// here, every address checked, and only checked addresses dialled.
func (p *Proxy) open(ctx context.Context, t Target) (net.Conn, Decision, error) {
	d := p.Rules.Decide(t)
	if d.Verdict == Ask {
		d = p.ask(ctx, t)
	}
	if d.Verdict != Allow {
		return nil, d, &errDenied{d}
	}
	addrs := []netip.Addr{t.Addr}
	if !t.IsIP() {
		res := p.Resolver
		if res == nil {
			res = net.DefaultResolver
		}
		found, err := res.LookupNetIP(ctx, "ip", t.Name)
		if err != nil {
			found = nil
		}
		var chk Decision
		addrs, chk = p.Rules.CheckResolved(t.Port, found)
		if chk.Verdict != Allow {
			chk.Rule = d.Rule
			return nil, chk, &errDenied{chk}
		}
	}
	var lastErr error
	for _, a := range addrs {
		c, err := p.dial(ctx, netip.AddrPortFrom(a, t.Port).String())
		if err == nil {
			return c, d, nil
		}
		lastErr = err
	}
	return nil, d, lastErr
}

func (p *Proxy) ask(ctx context.Context, t Target) Decision {
	if p.Ask == nil {
		return Decision{Verdict: Deny, Reason: ReasonAllowlist}
	}
	timeout := p.AskTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := p.Ask(ctx, t)
	if err != nil || v != Allow {
		return Decision{Verdict: Deny, Reason: ReasonDeclined}
	}
	return Decision{Verdict: Allow, Rule: "approved by the user"}
}

func (p *Proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", addr)
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, "tcp", addr)
}

func (p *Proxy) report(e Event) {
	if p.Report != nil {
		p.Report(e)
	}
}

// tunnel relays an allowed connection after checking what the client
// sends first: a TLS ClientHello must name the target (or another allowed
// host), and plain HTTP is proxied request by request with each Host
// checked. Anything else is relayed as it is (the target was allowed).
func (p *Proxy) tunnel(ev *Event, t Target, client net.Conn, br *bufio.Reader, upstream net.Conn) {
	client.SetReadDeadline(time.Now().Add(ServerFirstWait))
	first, err := br.Peek(1)
	client.SetReadDeadline(time.Time{})
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			p.serverFirst(ev, t, client, br, upstream)
		}
		return
	}
	switch {
	case first[0] == 0x16:
		if p.passHello(ev, t, br, upstream) {
			relay(ev, client, br, upstream)
		}
	case isMethodByte(first[0]):
		p.relayHTTP(ev, t, client, br, upstream)
	default:
		relay(ev, client, br, upstream)
	}
}

// sniAllowed: the SNI must be present for a name target and name it, or
// name another host the rules allow on the same port. An IP-literal target
// (allowed by an explicit address rule) may omit it.
func (p *Proxy) sniAllowed(t Target, sni string) bool {
	if sni == "" {
		return t.IsIP()
	}
	st, err := ParseHost(sni)
	if err != nil || st.IsIP() {
		return false
	}
	if st.Name == t.Name {
		return true
	}
	st.Port = t.Port
	return p.Rules.Decide(st).Verdict == Allow
}

func isMethodByte(b byte) bool { return b >= 'A' && b <= 'Z' }

// relay copies both ways until either side closes, counting bytes.
func relay(ev *Event, client net.Conn, br *bufio.Reader, upstream net.Conn) {
	var up, down atomic.Int64
	done := make(chan struct{})
	go func() {
		n, _ := copyRelay(upstream, br)
		up.Add(n)
		closeWrite(upstream)
		close(done)
	}()
	n, _ := copyRelay(client, upstream)
	down.Add(n)
	closeWrite(client)
	<-done
	ev.Up += up.Load()
	ev.Down += down.Load()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

var errHostMismatch = errors.New("host mismatch")

// reportInvalid reports a request refused before any decision: a
// destination that does not parse, or Host headers that disagree. The
// text as sent is kept printable and short (it reaches the model).
func (p *Proxy) reportInvalid(via, raw, reason string, err error) {
	ev := Event{Via: via, Host: Printable(raw), Verdict: Deny, Reason: reason}
	if err != nil {
		ev.Why = Printable(err.Error())
	}
	p.report(ev)
}

// Printable keeps the printable ASCII of s, at most 80 bytes, with every
// other byte shown as '?': a hostile destination cannot put a line break,
// an escape sequence or a megabyte into a report or the narration.
func Printable(s string) string {
	b := make([]byte, 0, min(len(s), 81))
	for i := 0; i < len(s) && len(b) < 80; i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e {
			c = '?'
		}
		b = append(b, c)
	}
	if len(s) > 80 {
		b = append(b, "..."...)
	}
	return string(b)
}

// ServerFirstWait is how long a tunnel waits for the client's first byte
// before treating the protocol as one where the server speaks first (SSH,
// SMTP, FTP): every client library writes its request or ClientHello as
// soon as it is connected.
var ServerFirstWait = 500 * time.Millisecond

// serverFirst relays a connection whose client waited for the server: the
// server's bytes flow at once, and the client's first bytes are still
// checked — a TLS ClientHello must name the target (no fronting after a
// pause), and an HTTP request is refused (its Host could not be checked
// request by request once the reply direction is a plain copy).
func (p *Proxy) serverFirst(ev *Event, t Target, client net.Conn, br *bufio.Reader, upstream net.Conn) {
	var down atomic.Int64
	done := make(chan struct{})
	go func() {
		n, _ := copyRelay(client, upstream)
		down.Add(n)
		closeWrite(client)
		close(done)
	}()
	defer func() {
		upstream.Close()
		client.Close()
		<-done
		ev.Down += down.Load()
	}()
	first, err := br.Peek(1)
	if err != nil {
		closeWrite(upstream)
		return
	}
	if first[0] == 0x16 {
		if !p.passHello(ev, t, br, upstream) {
			return
		}
	} else if looksLikeHTTP(client, br) {
		ev.Verdict, ev.Reason, ev.Why = Deny, ReasonHostMatch, "an HTTP request after the server spoke first"
		return
	}
	n, _ := copyRelay(upstream, br)
	ev.Up += n
	closeWrite(upstream)
	<-done
}

// httpMethods are the request methods an HTTP/1 client starts with.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "PRI"}

// looksLikeHTTP: the client's first word is an HTTP method, or could
// still become one. It waits (briefly) for a space, a line end or 16
// bytes, so a request line written a byte at a time is judged whole.
func looksLikeHTTP(client net.Conn, br *bufio.Reader) bool {
	client.SetReadDeadline(time.Now().Add(2 * time.Second))
	defer client.SetReadDeadline(time.Time{})
	for {
		b, _ := br.Peek(br.Buffered())
		if i := bytes.IndexAny(b, " \r\n\t"); i >= 0 {
			return slices.Contains(httpMethods, string(b[:i]))
		}
		if len(b) >= 16 {
			return false
		}
		if _, err := br.Peek(len(b) + 1); err != nil {
			// Nothing more for now: judge the word so far as a prefix.
			return slices.ContainsFunc(httpMethods, func(m string) bool { return strings.HasPrefix(m, string(b)) })
		}
	}
}

// passHello reads the client's TLS ClientHello and forwards it when the
// name it carries (SNI) is the target or another allowed host; otherwise
// it records the refusal in ev. It reports whether the hello was passed
// on, so the caller may relay the rest.
func (p *Proxy) passHello(ev *Event, t Target, br *bufio.Reader, upstream net.Conn) bool {
	raw, sni, err := ReadClientHello(br)
	if err != nil || !p.sniAllowed(t, sni) {
		ev.Verdict, ev.Reason, ev.Why = Deny, ReasonSNIMismatch, "TLS names "+strconv.Quote(sni)
		return false
	}
	if _, err := upstream.Write(raw); err != nil {
		return false
	}
	ev.Up += int64(len(raw))
	return true
}
