package landlock

import (
	"fmt"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
)

// WithProxy is the plan for the domains network on this backend, whose
// command shares the host's network: the policy proxy listens on
// 127.0.0.1 at httpPort and socksPort (in ringfence, outside the
// sandbox), and the command may reach nothing else. Seccomp allows only
// unix and TCP sockets (no UDP, QUIC, raw, packet, MPTCP, vsock) and its
// supervisor performs every IP connect itself, to 127.0.0.1 at one of
// those ports only (the address read once, the connect made to the one
// it checked); listen on an IP socket is refused. Landlock's TCP rules,
// which name ports and not addresses, allow connecting to the two ports
// and nothing else, and no bind: a second wall.
func WithProxy(plan Plan, httpPort, socksPort uint16) Plan {
	ports := []uint16{httpPort, socksPort}
	plan.Landlock.RestrictTCP = true
	plan.Landlock.ConnectTCP = append([]uint16(nil), ports...)
	plan.Seccomp.DenyInet = false
	plan.Seccomp.DenyUnixConnect = true
	plan.Seccomp.ProxyPorts = append([]uint16(nil), ports...)
	return plan
}

// domainsReason is what a run under the domains network is told about
// this backend's network.
func domainsReason(abi int) string {
	r := "network domains without a network namespace: only the policy proxy (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, set for the command) " +
		"reaches the network, and each connection through it is decided by name; a program that ignores the proxy variables " +
		"is refused, not captured (direct connects fail with EACCES; there is no DNS, UDP or QUIC, and no listening on IP sockets)"
	if abi < 4 {
		r += "; Landlock ABI " + fmt.Sprint(abi) + " has no TCP rules, so the seccomp supervisor alone holds the address"
	}
	return r
}

// domainsSetup is the supervisor's half of the domains network for one
// run: the proxy's loopback listeners and the session serving them.
type domainsSetup struct {
	proxy netproxy.Proxy
	local *netproxy.Local

	mu      sync.Mutex
	started bool
	done    bool
	log     confine.NetLog
}

// prepareDomains compiles the rules and opens the listeners (their ports
// go into the plan and the environment before the spec is written).
func prepareDomains(req confine.Request) (*domainsSetup, error) {
	rules, err := req.Policy.Network.ProxyRules()
	if err != nil {
		return nil, err
	}
	d := &domainsSetup{proxy: netproxy.Proxy{Rules: rules}}
	if o := req.Net; o != nil {
		d.proxy.Resolver, d.proxy.Dial, d.proxy.Ask, d.proxy.Report = o.Resolver, o.Dial, o.Ask, o.Report
	}
	if d.local, err = netproxy.ListenLocal(); err != nil {
		return nil, fmt.Errorf("policy proxy listeners: %w", err)
	}
	return d, nil
}

// attach serves the listeners from Setup (before the spec is written, so
// the command cannot connect before its proxy answers), stops them and
// collects the decisions at Cleanup.
func (d *domainsSetup) attach(cmd *confine.Cmd) {
	setup, cleanup := cmd.Setup, cmd.Cleanup
	cmd.Setup = func(pid int) error {
		d.mu.Lock()
		err := d.local.Start(&d.proxy)
		d.started = err == nil
		d.mu.Unlock()
		if err != nil {
			return fmt.Errorf("policy proxy: %w", err)
		}
		if setup != nil {
			return setup(pid)
		}
		return nil
	}
	cmd.Cleanup = func() {
		d.stop()
		if cleanup != nil {
			cleanup()
		}
	}
	cmd.SetNet = func(o *confine.NetOptions) {
		if o.Resolver != nil {
			d.proxy.Resolver = o.Resolver
		}
		if o.Dial != nil {
			d.proxy.Dial = o.Dial
		}
		if o.Ask != nil {
			d.proxy.Ask = o.Ask
		}
		if o.Report != nil {
			d.proxy.Report = o.Report
		}
	}
	cmd.NetEvents = func() confine.NetLog {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.log
	}
}

// stop ends the session once, or only closes the listeners if it never
// started.
func (d *domainsSetup) stop() {
	d.mu.Lock()
	if d.done {
		d.mu.Unlock()
		return
	}
	d.done = true
	started := d.started
	d.mu.Unlock()
	if !started {
		d.local.Close()
		return
	}
	evs, dropped := d.local.Stop(time.Second)
	d.mu.Lock()
	d.log = confine.NetLog{Events: evs, Dropped: dropped}
	d.mu.Unlock()
}

// isDomains reports whether p needs the proxy.
func isDomains(p *policy.Policy) bool { return p.Network.Mode == policy.NetDomains }
