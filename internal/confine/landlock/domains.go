package landlock

import (
	"fmt"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/domainnet"
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
	hooks *domainnet.Hooks
	local *netproxy.Local

	mu      sync.Mutex
	started bool
	done    bool
}

// prepareDomains compiles the rules and opens the listeners (their ports
// go into the plan and the environment before the spec is written).
func prepareDomains(req confine.Request) (*domainsSetup, error) {
	hooks, err := domainnet.NewHooks(req)
	if err != nil {
		return nil, err
	}
	d := &domainsSetup{hooks: hooks}
	if d.local, err = netproxy.ListenLocal(); err != nil {
		return nil, fmt.Errorf("policy proxy listeners: %w", err)
	}
	return d, nil
}

// attach serves the listeners from Setup (before the spec is written, so
// the command cannot connect before its proxy answers), stops them and
// collects the decisions at Cleanup.
func (d *domainsSetup) attach(cmd *confine.Cmd) {
	d.hooks.Wire(cmd, func(p *netproxy.Proxy) error {
		d.mu.Lock()
		defer d.mu.Unlock()
		err := d.local.Start(p)
		d.started = err == nil
		return err
	}, d.stop)
}

// stop ends the session once, or only closes the listeners if it never
// started; ok says it ended a started session (evs are its decisions).
func (d *domainsSetup) stop() (evs []netproxy.Event, dropped int, ok bool) {
	d.mu.Lock()
	if d.done {
		d.mu.Unlock()
		return nil, 0, false
	}
	d.done = true
	started := d.started
	d.mu.Unlock()
	if !started {
		d.local.Close()
		return nil, 0, false
	}
	evs, dropped = d.local.Stop(time.Second)
	return evs, dropped, true
}

// isDomains reports whether p needs the proxy.
func isDomains(p *policy.Policy) bool { return p.Network.Mode == policy.NetDomains }
