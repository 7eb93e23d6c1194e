package linux

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
)

// resolvConf names the in-namespace DNS stub. One attempt and a short
// timeout: the stub answers at once or not at all.
const resolvConf = "# ringfence: the sandbox's DNS stub (names are decided by the proxy)\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n"

// domainsSetup is the supervisor's half of the domains network for one
// run: the socket pair the init hands connections over, the generated
// resolv.conf, and the proxy session serving them.
type domainsSetup struct {
	proxy    netproxy.Proxy
	sup, ini *os.File // the supervisor's and the init's ends
	resolv   string   // the generated resolv.conf (removed at cleanup)

	mu  sync.Mutex
	ses *netproxy.Session
	log confine.NetLog
}

// prepareDomains compiles the rules, makes the socket pair and the
// resolv.conf, and fills in the spec: the proxy listeners, lo, the proxy
// environment, and resolv.conf bound over /etc/resolv.conf in the view.
func prepareDomains(req confine.Request, spec *initproc.Spec) (*domainsSetup, error) {
	rules, err := req.Policy.Network.ProxyRules()
	if err != nil {
		return nil, err
	}
	d := &domainsSetup{proxy: netproxy.Proxy{Rules: rules}}
	if o := req.Net; o != nil {
		d.proxy.Resolver, d.proxy.Dial, d.proxy.Ask, d.proxy.Report = o.Resolver, o.Dial, o.Ask, o.Report
	}
	fds, err := handoffPair()
	if err != nil {
		return nil, fmt.Errorf("handoff socket pair: %w", err)
	}
	d.sup, d.ini = os.NewFile(uintptr(fds[0]), "handoff-supervisor"), os.NewFile(uintptr(fds[1]), "handoff-init")
	f, err := os.CreateTemp("", "ringfence-resolv-*.conf")
	if err != nil {
		d.close()
		return nil, err
	}
	d.resolv = f.Name()
	_, err = f.WriteString(resolvConf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(d.resolv, 0o644)
	}
	if err != nil {
		d.close()
		return nil, err
	}
	spec.Proxy = &initproc.ProxySpec{}
	spec.Loopback = true
	spec.Env = netproxy.WithProxyEnv(spec.Env)
	spec.View.Ops = append(spec.View.Ops, initproc.Op{Kind: initproc.BindRO, Source: d.resolv, Target: "/etc/resolv.conf"})
	return d, nil
}

// attach gives the init its end (descriptor HandoffFD), starts serving
// before the spec is written (so no connection can arrive unserved), and
// stops and collects the decisions when the run is over.
func (d *domainsSetup) attach(cmd *confine.Cmd) {
	if len(cmd.ExtraFiles) != initproc.HandoffFD-3 {
		panic("linux: handoff descriptor out of place")
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, d.ini)
	setup, cleanup := cmd.Setup, cmd.Cleanup
	cmd.Setup = func(pid int) error {
		ses, err := netproxy.Serve(&d.proxy, d.sup)
		d.sup = nil // Serve took it over
		if err != nil {
			return fmt.Errorf("policy proxy: %w", err)
		}
		d.mu.Lock()
		d.ses = ses
		d.mu.Unlock()
		if setup != nil {
			return setup(pid)
		}
		return nil
	}
	cmd.Cleanup = func() {
		d.mu.Lock()
		ses := d.ses
		d.ses = nil
		d.mu.Unlock()
		if ses != nil {
			evs, dropped := ses.Stop(time.Second)
			d.mu.Lock()
			d.log = confine.NetLog{Events: evs, Dropped: dropped}
			d.mu.Unlock()
		}
		d.close()
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

func (d *domainsSetup) close() {
	if d.sup != nil {
		d.sup.Close()
		d.sup = nil
	}
	if d.ini != nil {
		d.ini.Close()
	}
	if d.resolv != "" {
		os.Remove(d.resolv)
	}
}

// isDomains reports whether p needs the proxy.
func isDomains(p *policy.Policy) bool { return p.Network.Mode == policy.NetDomains }
