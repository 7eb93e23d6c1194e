package domainnet

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
)

// Setup is the supervisor's half of the domains network for one run, the
// same for every backend that gives the command a network namespace: the
// compiled rules and the proxy, the socket pair the sandbox's pid 1 hands
// connections over, the generated resolv.conf, and the session serving
// them once the sandbox starts.
type Setup struct {
	hooks    *Hooks
	sup, ini *os.File // the supervisor's and the sandbox's ends
	resolv   string   // the generated resolv.conf (removed at cleanup)

	mu  sync.Mutex
	ses *netproxy.Session
}

// Needed reports whether p runs the domains network.
func Needed(p *policy.Policy) bool {
	return p != nil && p.Confining() && p.Network.Mode == policy.NetDomains
}

// Prepare compiles the rules (an invalid rule is an error, never an open
// network), makes the socket pair and the resolv.conf. The caller passes
// InitFile to the sandbox, binds ResolvPath over /etc/resolv.conf, gives
// the command Env, then calls Attach; on a failure before Attach, Close.
func Prepare(req confine.Request) (*Setup, error) {
	hooks, err := NewHooks(req)
	if err != nil {
		return nil, err
	}
	d := &Setup{hooks: hooks}
	fds, err := handoffPair()
	if err != nil {
		return nil, fmt.Errorf("%w: handoff socket pair: %v", policy.ErrUnavailable, err)
	}
	d.sup, d.ini = os.NewFile(uintptr(fds[0]), "handoff-supervisor"), os.NewFile(uintptr(fds[1]), "handoff-init")
	f, err := os.CreateTemp("", "ringfence-resolv-*.conf")
	if err != nil {
		d.Close()
		return nil, err
	}
	d.resolv = f.Name()
	_, err = f.WriteString(ResolvConf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(d.resolv, 0o644)
	}
	if err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// InitFile is the sandbox's end of the handoff pair, for the caller to
// place at the descriptor its pid 1 expects. Close-on-exec in the
// supervisor; the pid 1 marks it close-on-exec before the command runs.
func (d *Setup) InitFile() *os.File { return d.ini }

// ResolvPath is the host path of the generated resolv.conf.
func (d *Setup) ResolvPath() string { return d.resolv }

// Env is env with the proxy variables the command gets.
func (d *Setup) Env(env []string) []string { return netproxy.WithProxyEnv(env) }

// Attach wires the run's hooks: serving starts in Setup (so no
// connection can arrive unserved: the socket pair queues any that come
// before), Cleanup stops and collects the decisions, SetNet replaces the
// proxy's settings before the start, NetEvents reports the decisions.
func (d *Setup) Attach(cmd *confine.Cmd) {
	d.hooks.Wire(cmd, func(p *netproxy.Proxy) error {
		ses, err := netproxy.Serve(p, d.sup)
		d.sup = nil // Serve took it over
		if err != nil {
			return err
		}
		d.mu.Lock()
		d.ses = ses
		d.mu.Unlock()
		return nil
	}, func() ([]netproxy.Event, int, bool) {
		d.mu.Lock()
		ses := d.ses
		d.ses = nil
		d.mu.Unlock()
		var evs []netproxy.Event
		dropped := 0
		if ses != nil {
			evs, dropped = ses.Stop(time.Second)
		}
		d.Close()
		return evs, dropped, ses != nil
	})
}

// Close releases what the supervisor holds: both ends not yet handed on
// and the resolv.conf. Safe to call more than once.
func (d *Setup) Close() {
	if d.sup != nil {
		d.sup.Close()
		d.sup = nil
	}
	if d.ini != nil {
		d.ini.Close()
		d.ini = nil
	}
	if d.resolv != "" {
		os.Remove(d.resolv)
		d.resolv = ""
	}
}
