package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
)

// networkFlags are the domains-mode flags: the proxy's allow and deny
// rules and whether a person is asked about unlisted hosts.
type networkFlags struct {
	allow, deny []string
	ask         bool
}

func (n *networkFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&n.allow, "allow-domain", nil, "under --network domains, allow `RULE`: host, host:port, *.suffix, [IPv6], IP/CIDR, * or a preset (@go, @npm, @pypi, @crates, @github…); implies --network domains; replaces the policy file's allow list (repeatable)")
	fs.StringArrayVar(&n.deny, "deny-domain", nil, "under --network domains, refuse `RULE` (deny always wins; added to the policy file's deny list; repeatable)")
	fs.BoolVar(&n.ask, "network-ask", false, "under --network domains, put hosts no rule names to the person through the MCP approval gate (under run they are blocked)")
}

// apply lays the network flags over d after --network: rules are checked
// here so a mistake is named with its flag, before anything starts.
func (n *networkFlags) apply(fs *pflag.FlagSet, d *policy.Defaults) error {
	for _, r := range n.allow {
		if _, err := netproxy.ParseRules([]string{r}, true); err != nil {
			return fmt.Errorf("--allow-domain: %w", err)
		}
	}
	for _, r := range n.deny {
		if _, err := netproxy.ParseRules([]string{r}, false); err != nil {
			return fmt.Errorf("--deny-domain: %w", err)
		}
	}
	domainFlags := len(n.allow) > 0 || len(n.deny) > 0 || n.ask
	if domainFlags && !fs.Changed("network") {
		d.Network.Mode = policy.NetDomains
	}
	if d.Network.Mode != policy.NetDomains {
		if domainFlags {
			return fmt.Errorf("--allow-domain, --deny-domain and --network-ask need --network domains (not %s)", d.Network.Mode)
		}
		// Another mode chosen on the command line: the file's rules no
		// longer apply.
		d.Network = policy.Network{Mode: d.Network.Mode}
		return nil
	}
	if len(n.allow) > 0 {
		d.Network.Domains = append([]string(nil), n.allow...)
	}
	d.Network.Deny = append(append([]string(nil), d.Network.Deny...), n.deny...)
	if n.ask {
		d.Network.Ask = true
	}
	if len(d.Network.Domains) == 0 {
		return fmt.Errorf("--network domains needs at least one --allow-domain (or allow = [...] in the policy file)")
	}
	return nil
}
