package domainnet

import (
	"fmt"
	"sync"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/netproxy"
)

// Hooks is the part of a run's domains network every backend shares,
// whatever carries the connections to the policy proxy (the handoff
// socket pair of Setup for a backend with a network namespace, loopback
// listeners for the landlock backend): the proxy, the decisions it made,
// and the Cmd hooks that serve it for the run's life.
type Hooks struct {
	proxy netproxy.Proxy

	mu  sync.Mutex
	log confine.NetLog
}

// NewHooks compiles the request's rules (an invalid rule is an error,
// never an open network) and takes its proxy settings.
func NewHooks(req confine.Request) (*Hooks, error) {
	rules, err := req.Policy.Network.ProxyRules()
	if err != nil {
		return nil, err
	}
	h := &Hooks{proxy: netproxy.Proxy{Rules: rules}}
	if req.Net != nil {
		h.set(req.Net)
	}
	return h, nil
}

// set replaces the proxy settings o carries (its non-nil fields).
func (h *Hooks) set(o *confine.NetOptions) {
	if o.Resolver != nil {
		h.proxy.Resolver = o.Resolver
	}
	if o.Dial != nil {
		h.proxy.Dial = o.Dial
	}
	if o.Ask != nil {
		h.proxy.Ask = o.Ask
	}
	if o.Report != nil {
		h.proxy.Report = o.Report
	}
}

// Wire sets cmd's hooks around the ones the backend already set. Setup
// runs serve first (so the command cannot connect before its proxy
// answers), then the backend's. Cleanup runs stop, keeps the decisions
// when stop reports it ended a served session (ok), then the backend's.
// SetNet replaces the proxy's settings (before the start); NetEvents
// reports the decisions, complete once Cleanup has run.
func (h *Hooks) Wire(cmd *confine.Cmd, serve func(*netproxy.Proxy) error, stop func() (evs []netproxy.Event, dropped int, ok bool)) {
	setup, cleanup := cmd.Setup, cmd.Cleanup
	cmd.Setup = func(pid int) error {
		if err := serve(&h.proxy); err != nil {
			return fmt.Errorf("policy proxy: %w", err)
		}
		if setup != nil {
			return setup(pid)
		}
		return nil
	}
	cmd.Cleanup = func() {
		if evs, dropped, ok := stop(); ok {
			h.mu.Lock()
			h.log = confine.NetLog{Events: evs, Dropped: dropped}
			h.mu.Unlock()
		}
		if cleanup != nil {
			cleanup()
		}
	}
	cmd.SetNet = h.set
	cmd.NetEvents = func() confine.NetLog {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.log
	}
}
