package netrule

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func mustRules(t *testing.T, allow, deny []string) Rules {
	t.Helper()
	a, err := ParseRules(allow, true)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseRules(deny, false)
	if err != nil {
		t.Fatal(err)
	}
	return Rules{Allow: a, Deny: d, Explain: map[string]string{"pastebin.com": "exfiltration risk"}}
}

func TestParseRuleRefusals(t *testing.T) {
	for in, why := range map[string]string{
		"*.com":          "top-level",
		"*.co.uk":        "anyone can register",
		"*.github.io":    "anyone can register",
		"*":              "only allowed in the allow list",
		"ex*ample.com":   "wildcard",
		"*.":             "*.name",
		"10.0.0.0/33":    "CIDR",
		"example.com:0":  "port",
		"[::1":           "brackets",
		"0177.0.0.1":     "dotted quad",
		"exa mple.com":   "not allowed",
		"@nosuchpreset":  "unknown preset",
		"example.com:ab": "port",
	} {
		_, err := ParseRules([]string{in}, false)
		if err == nil || !errors.Is(err, ErrRule) || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseRules(%q) = %v; want a refusal mentioning %q", in, err, why)
		}
	}
}

func TestDecide(t *testing.T) {
	r := mustRules(t,
		[]string{"example.com", "*.npmjs.org", "api.test:8443", "[2001:db8::5]", "198.51.100.0/28", "@go"},
		[]string{"pastebin.com", "bad.npmjs.org"})
	cases := []struct {
		target  string
		verdict Verdict
		reason  string
	}{
		{"example.com:443", Allow, ""},
		{"www.example.com:443", Deny, ReasonAllowlist}, // exact is exact
		{"evilexample.com:443", Deny, ReasonAllowlist},
		{"registry.npmjs.org:443", Allow, ""},
		{"npmjs.org:443", Deny, ReasonAllowlist}, // *.x is subdomains only
		{"bad.npmjs.org:443", Deny, ReasonDenylist},
		{"api.test:8443", Allow, ""},
		{"api.test:443", Deny, ReasonAllowlist},
		{"proxy.golang.org:443", Allow, ""},
		{"pastebin.com:443", Deny, ReasonDenylist},
		{"198.51.100.9:80", Allow, ""},
		{"198.51.100.99:80", Deny, ReasonAllowlist},
		{"[2001:db8::5]:443", Allow, ""},
		{"127.0.0.1:80", Deny, ReasonPrivate},
		{"169.254.169.254:80", Deny, ReasonPrivate},
		{"[::ffff:10.0.0.1]:80", Deny, ReasonPrivate},
	}
	for _, c := range cases {
		tg, err := ParseAuthority(c.target)
		if err != nil {
			t.Fatal(err)
		}
		d := r.Decide(tg)
		if d.Verdict != c.verdict || (c.reason != "" && d.Reason != c.reason) {
			t.Errorf("Decide(%s) = %+v; want %v %s", c.target, d, c.verdict, c.reason)
		}
	}
	d := r.Decide(Target{Name: "pastebin.com", Port: 443})
	if d.Why != "exfiltration risk" || d.Rule != "pastebin.com" {
		t.Errorf("deny rule's explanation lost: %+v", d)
	}
}

func TestDecideStar(t *testing.T) {
	r := mustRules(t, []string{"*"}, []string{"*.evil.example"})
	for target, want := range map[string]Verdict{
		"anything.example:443": Allow, "x.evil.example:443": Deny,
		"198.51.100.1:80": Allow, "10.1.2.3:80": Deny, "[::1]:80": Deny,
	} {
		tg, _ := ParseAuthority(target)
		if got := r.Decide(tg).Verdict; got != want {
			t.Errorf("with *: Decide(%s) = %v, want %v", target, got, want)
		}
	}
	if (Rules{}).Decide(Target{Name: "example.com", Port: 443}).Verdict != Deny {
		t.Error("the zero Rules must deny")
	}
	if (Rules{AskUnlisted: true}).Decide(Target{Name: "example.com", Port: 443}).Verdict != Ask {
		t.Error("AskUnlisted must ask for an unlisted name")
	}
}

func TestCheckResolved(t *testing.T) {
	r := mustRules(t, []string{"example.com", "10.9.0.0/16"}, []string{"203.0.113.66"})
	addrs := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range s {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	for _, c := range []struct {
		in   []netip.Addr
		want Verdict
	}{
		{addrs("198.51.100.7", "2001:db8::7"), Allow},
		{addrs("198.51.100.7", "127.0.0.1"), Deny}, // one bad answer refuses the name
		{addrs("169.254.169.254"), Deny},
		{addrs("::1"), Deny},
		{addrs("::ffff:192.168.1.1"), Deny},
		{addrs("64:ff9b::a00:1"), Deny},   // NAT64 of 10.0.0.1
		{addrs("2002:c0a8:101::1"), Deny}, // 6to4 of 192.168.1.1
		{addrs("10.9.3.4"), Allow},        // named explicitly by a CIDR rule
		{addrs("203.0.113.66"), Deny},
		{nil, Deny},
	} {
		got, d := r.CheckResolved(443, c.in)
		if d.Verdict != c.want || (d.Verdict == Allow && len(got) != len(c.in)) {
			t.Errorf("CheckResolved(%v) = %v, %+v; want %v", c.in, got, d, c.want)
		}
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com:443", "[::1]:80", "10.0.0.0/8", "*", "@go"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s, true)
		if err != nil {
			return
		}
		switch r.Kind {
		case Exact, Subdomains:
			if nameProblem(r.Name) != "" {
				t.Fatalf("%q accepted with a bad name %q", s, r.Name)
			}
			if r.Kind == Subdomains && overBroad(r.Name) != "" {
				t.Fatalf("%q: over-broad wildcard accepted", s)
			}
		case Network:
			if !r.Prefix.IsValid() {
				t.Fatalf("%q: invalid prefix accepted", s)
			}
		case Everything:
			if strings.TrimSpace(s) != "*" {
				t.Fatalf("%q parsed as *", s)
			}
		default:
			t.Fatalf("%q: no kind", s)
		}
	})
}
