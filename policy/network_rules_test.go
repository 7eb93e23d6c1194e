package policy

import (
	"errors"
	"slices"
	"testing"

	"github.com/ringfence/ringfence/internal/netproxy"
)

func TestNetworkDenyReasonsAsk(t *testing.T) {
	ceiling := Network{Mode: NetDomains, Domains: []string{"@go", "*.npmjs.org", "pastebin.com"},
		Deny: []string{"pastebin.com"}, Reasons: map[string]string{"pastebin.com": "exfiltration risk"}, Ask: true}
	d := wsDefaults()
	d.Network = ceiling

	// A request naming a subset keeps the ceiling's deny rules and reasons,
	// adds its own deny, and may switch asking off.
	p, err := Resolve(Request{Network: &Network{Mode: NetDomains, Domains: []string{"registry.npmjs.org", "proxy.golang.org"}, Deny: []string{"evil.npmjs.org"}}}, d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Network.Deny, []string{"evil.npmjs.org", "pastebin.com"}) || p.Network.Ask {
		t.Fatalf("got %+v", p.Network)
	}
	if p.Network.Reasons["pastebin.com"] != "exfiltration risk" {
		t.Fatalf("reason lost: %+v", p.Network.Reasons)
	}
	// Omitting the domains keeps the list and asking.
	p, err = Resolve(Request{Network: &Network{Mode: NetDomains, Ask: true}}, d)
	if err != nil || !p.Network.Ask || len(p.Network.Domains) != 3 {
		t.Fatalf("got %+v, %v", p.Network, err)
	}
	// A request cannot turn asking on under a ceiling without it.
	d2 := wsDefaults()
	d2.Network = Network{Mode: NetDomains, Domains: []string{"a.org"}}
	p, err = Resolve(Request{Network: &Network{Mode: NetDomains, Domains: []string{"a.org"}, Ask: true}}, d2)
	if err != nil || p.Network.Ask {
		t.Fatalf("ask widened: %+v, %v", p.Network, err)
	}
	// A request's "*" is not a subset of named hosts.
	_, err = Resolve(Request{Network: &Network{Mode: NetDomains, Domains: []string{"*"}}}, d)
	wantEscalation(t, err, "network domain", "*")
	// An address rule is not covered by "*" (it could name a private range).
	d3 := wsDefaults()
	d3.Network = Network{Mode: NetDomains, Domains: []string{"*"}}
	_, err = Resolve(Request{Network: &Network{Mode: NetDomains, Domains: []string{"10.0.0.0/8"}}}, d3)
	wantEscalation(t, err, "network domain", "10.0.0.0/8")

	// An approval adds a host; the ceiling's deny still wins.
	appr := Approve(Grant{Network: &Network{Mode: NetDomains, Domains: []string{"pypi.org"}, Deny: nil}})
	p, err = Resolve(Request{Approval: appr}, d)
	if err != nil || !slices.Contains(p.Network.Domains, "pypi.org") || !slices.Contains(p.Network.Deny, "pastebin.com") {
		t.Fatalf("approval: %+v, %v", p.Network, err)
	}
	rules, err := p.Network.ProxyRules()
	if err != nil {
		t.Fatal(err)
	}
	dec := rules.Decide(netproxy.Target{Name: "pastebin.com", Port: 443})
	if dec.Verdict != netproxy.Deny || dec.Why != "exfiltration risk" || dec.Rule != "pastebin.com" {
		t.Fatalf("deny did not win: %+v", dec)
	}
	if dec := rules.Decide(netproxy.Target{Name: "pypi.org", Port: 443}); dec.Verdict != netproxy.Allow {
		t.Fatalf("approved host: %+v", dec)
	}
	if dec := rules.Decide(netproxy.Target{Name: "other.org", Port: 443}); dec.Verdict != netproxy.Ask {
		t.Fatalf("unlisted under ask: %+v", dec)
	}
}

func TestNetworkRulesInvalid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     Network
		field string
	}{
		{"over-broad wildcard", Network{Mode: NetDomains, Domains: []string{"*.com"}}, "network domain"},
		{"star in deny", Network{Mode: NetDomains, Domains: []string{"a.org"}, Deny: []string{"*"}}, "network deny"},
		{"bad deny", Network{Mode: NetDomains, Domains: []string{"a.org"}, Deny: []string{"a\r\nb"}}, "network deny"},
		{"reason without rule", Network{Mode: NetDomains, Domains: []string{"a.org"}, Reasons: map[string]string{"b.org": "x"}}, "network reason"},
		{"reason two lines", Network{Mode: NetDomains, Domains: []string{"a.org"}, Deny: []string{"b.org"}, Reasons: map[string]string{"b.org": "x\ny"}}, "network reason"},
		{"deny without domains mode", Network{Mode: NetLoopback, Deny: []string{"b.org"}}, "network"},
		{"ask without domains mode", Network{Mode: NetDeny, Ask: true}, "network"},
		{"unknown preset", Network{Mode: NetDomains, Domains: []string{"@nope"}}, "network domain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := wsDefaults()
			d.Network = tc.n
			_, err := Resolve(Request{}, d)
			wantInvalid(t, err, tc.field)
			var ie *InvalidError
			if errors.As(err, &ie) && ie.Reason == "" {
				t.Fatalf("no reason given: %v", err)
			}
		})
	}
}
