package policyfile

import (
	"slices"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

const domainsDoc = `[network]
mode = "domains"
allow = ["@go", "*.github.com"]
domains = ["pypi.org"]
deny = ["pastebin.com"]
reasons = { "pastebin.com" = "exfiltration risk" }
`

func TestNetworkTableAllowDenyReasons(t *testing.T) {
	f := parseT(t, domainsDoc)
	d, err := f.Defaults("/repo")
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Resolve(policy.Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	n := p.Network
	if n.Mode != policy.NetDomains || !slices.Equal(n.Domains, []string{"*.github.com", "@go", "pypi.org"}) ||
		!slices.Equal(n.Deny, []string{"pastebin.com"}) || n.Reasons["pastebin.com"] != "exfiltration risk" {
		t.Fatalf("got %+v", n)
	}
	bad := parseT(t, "[network]\nmode = \"domains\"\nallow = [\"*.com\"]\n")
	d, err = bad.Defaults("/repo")
	if err == nil {
		_, err = policy.Resolve(policy.Request{}, d)
	}
	if err == nil || !strings.Contains(err.Error(), "*.com") {
		t.Fatalf("over-broad rule not named: %v", err)
	}
}

func TestNarrowNetworkRules(t *testing.T) {
	base := userBase()
	base.Defaults.Network = policy.Network{Mode: policy.NetDomains, Domains: []string{"@go", "pypi.org"}}
	// An untrusted file may name a subset and add deny rules…
	f := parseT(t, "[network]\nmode = \"domains\"\nallow = [\"proxy.golang.org\"]\ndeny = [\"sum.golang.org\"]\n")
	got, err := f.Narrow(base)
	if err != nil {
		t.Fatalf("narrowing refused: %v", err)
	}
	if !slices.Equal(got.Defaults.Network.Domains, []string{"proxy.golang.org"}) || !slices.Contains(got.Defaults.Network.Deny, "sum.golang.org") {
		t.Fatalf("got %+v", got.Defaults.Network)
	}
	// …but not add a host.
	f = parseT(t, "[network]\nmode = \"domains\"\nallow = [\"evil.example\"]\n")
	if _, err := f.Narrow(base); err == nil || !strings.Contains(err.Error(), "evil.example") {
		t.Fatalf("widening not refused: %v", err)
	}
}
