package policy

import (
	"slices"
	"testing"
)

func TestNetworkNarrowsNeverWidens(t *testing.T) {
	deny, loop, all := Network{Mode: NetDeny}, Network{Mode: NetLoopback}, Network{Mode: NetAllowAll}
	doms := func(ds ...string) Network { return Network{Mode: NetDomains, Domains: ds} }
	for _, tc := range []struct {
		name      string
		def       Network
		req, appr *Network
		want      Network
		what, arg string // expected escalation
	}{
		{"inherit", loop, nil, nil, loop, "", ""},
		{"narrow to deny", all, &deny, nil, deny, "", ""},
		{"narrow to loopback", doms("a.org"), &loop, nil, loop, "", ""},
		{"widen loopback to all", loop, &all, nil, Network{}, "network allow-all", ""},
		{"widen deny to loopback", deny, &loop, nil, Network{}, "network loopback", ""},
		{"widen loopback to domains", loop, &Network{Mode: NetDomains, Domains: []string{"a.org"}}, nil, Network{}, "network domains", ""},
		{"domains subset", doms("a.org", "b.org"), &Network{Mode: NetDomains, Domains: []string{"B.org."}}, nil, doms("b.org"), "", ""},
		{"domains superset", doms("a.org"), &Network{Mode: NetDomains, Domains: []string{"a.org", "evil.org"}}, nil, Network{}, "network domain", "evil.org"},
		{"wildcard covers", doms("*.github.com"), &Network{Mode: NetDomains, Domains: []string{"api.github.com", "*.x.github.com"}}, nil, doms("*.x.github.com", "api.github.com"), "", ""},
		{"wildcard not apex", doms("*.github.com"), &Network{Mode: NetDomains, Domains: []string{"github.com"}}, nil, Network{}, "network domain", "github.com"},
		{"suffix is not a subdomain", doms("*.hub.com"), &Network{Mode: NetDomains, Domains: []string{"evilhub.com"}}, nil, Network{}, "network domain", "evilhub.com"},
		{"domains under allow-all", all, &Network{Mode: NetDomains, Domains: []string{"x.org"}}, nil, doms("x.org"), "", ""},
		{"domains mode keeps the list", doms("a.org"), &Network{Mode: NetDomains}, nil, doms("a.org"), "", ""},
		{"approved allow-all", deny, &all, &all, all, "", ""},
		{"approval applies when request omits", deny, nil, &loop, loop, "", ""},
		{"approved extra domain", doms("a.org"), &Network{Mode: NetDomains, Domains: []string{"b.org"}}, &Network{Mode: NetDomains, Domains: []string{"b.org"}}, doms("b.org"), "", ""},
		{"approval union", doms("a.org"), nil, &Network{Mode: NetDomains, Domains: []string{"b.org"}}, doms("a.org", "b.org"), "", ""},
		{"approval too small", deny, &all, &loop, Network{}, "network allow-all", ""},
		{"approval does not narrow", all, nil, &deny, all, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := wsDefaults()
			d.Network = tc.def
			req := Request{Network: tc.req}
			if tc.appr != nil {
				req.Approval = Approve(Grant{Network: tc.appr})
			}
			p, err := Resolve(req, d)
			if tc.what != "" {
				wantEscalation(t, err, tc.what, tc.arg)
				return
			}
			if err != nil || p.Network.Mode != tc.want.Mode || !slices.Equal(p.Network.Domains, tc.want.Domains) {
				t.Fatalf("got %+v, %v; want %+v", p, err, tc.want)
			}
		})
	}
}

func TestNetworkInvalid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		def   Network
		req   *Network
		field string
	}{
		{"domains without domains mode", Network{Mode: NetLoopback, Domains: []string{"a.org"}}, nil, "network"},
		{"domains mode without domains", Network{Mode: NetDomains}, nil, "network"},
		{"bad domain", Network{Mode: NetDomains, Domains: []string{"a b.org"}}, nil, "network domain"},
		{"bad mode", Network{Mode: 9}, nil, "network"},
		{"request bad domain", Network{Mode: NetAllowAll}, &Network{Mode: NetDomains, Domains: []string{"http://x"}}, "request network domain"},
		{"request empty domains under allow-all", Network{Mode: NetAllowAll}, &Network{Mode: NetDomains}, "request network"},
		{"request domains with loopback", Network{Mode: NetAllowAll}, &Network{Mode: NetLoopback, Domains: []string{"a.org"}}, "request network"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := wsDefaults()
			d.Network = tc.def
			_, err := Resolve(Request{Network: tc.req}, d)
			wantInvalid(t, err, tc.field)
		})
	}
}

func TestValidDomain(t *testing.T) {
	for d, ok := range map[string]bool{
		"example.com": true, "*.example.com": true, "a-b.c0": true, "localhost": true,
		"": false, "*": true, "*.": false, "a..b": false, ".a": false, "_dmarc.a.com": true, "**.a": false,
		"a.*.b": false, "1.2.3.4": true, "[::1]": true, "*.com": false, "*.co.uk": false, "@go": true,
		"@nope": false, "a.org:443": true, "a.org:0": false, "a b.org": false, "10.0.0.0/8": true,
	} {
		if validDomain(d) != ok {
			t.Errorf("validDomain(%q) = %v", d, !ok)
		}
	}
}
