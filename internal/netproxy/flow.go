package netproxy

import (
	"context"
	"net"
	"time"
)

// flow is one client connection's way through the proxy, the part every
// front end (HTTP, CONNECT, SOCKS5, captured) shares: its event, the
// decision, and the upstream connection when allowed.
type flow struct {
	p     *Proxy
	ev    Event
	d     Decision
	up    net.Conn // nil unless allowed and dialled
	start time.Time
}

// begin decides t for a connection that arrived by via and, if allowed,
// dials it (Proxy.open). The event carries the decision; the caller
// defers end at once, so the decision is reported exactly once, with the
// duration, however the caller goes on to change the event.
func (p *Proxy) begin(ctx context.Context, via string, t Target) (*flow, error) {
	f := &flow{p: p, ev: Event{Via: via, Host: t.Host(), Port: t.Port}, start: time.Now()}
	up, d, err := p.open(ctx, t)
	f.up, f.d = up, d
	f.ev.Verdict, f.ev.Rule, f.ev.Reason, f.ev.Why = d.Verdict, d.Rule, d.Reason, d.Why
	return f, err
}

// end stamps the duration and reports the event.
func (f *flow) end() {
	f.ev.Duration = time.Since(f.start)
	f.p.report(f.ev)
}
