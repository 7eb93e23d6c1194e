package linux

import (
	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/domainnet"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/policy"
)

// prepareDomains makes the supervisor's half (domainnet.Setup, the same
// for every backend) and fills in the spec: the proxy listeners, lo, the
// proxy environment, and resolv.conf bound over /etc/resolv.conf in the
// view.
func prepareDomains(req confine.Request, spec *initproc.Spec) (*domainnet.Setup, error) {
	d, err := domainnet.Prepare(req)
	if err != nil {
		return nil, err
	}
	spec.Proxy = &initproc.ProxySpec{}
	spec.Loopback = true
	spec.Env = d.Env(spec.Env)
	spec.View.Ops = append(spec.View.Ops, initproc.Op{Kind: initproc.BindRO, Source: d.ResolvPath(), Target: "/etc/resolv.conf"})
	return d, nil
}

// attachDomains gives the init its end (descriptor HandoffFD) and wires
// the run's hooks (domainnet.Setup.Attach).
func attachDomains(d *domainnet.Setup, cmd *confine.Cmd) {
	if len(cmd.ExtraFiles) != initproc.HandoffFD-3 {
		panic("linux: handoff descriptor out of place")
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, d.InitFile())
	d.Attach(cmd)
}

// isDomains reports whether p needs the proxy.
func isDomains(p *policy.Policy) bool { return p.Network.Mode == policy.NetDomains }
