package netrule

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// RuleKind is what a rule matches.
type RuleKind int

const (
	// Exact matches one name.
	Exact RuleKind = iota + 1
	// Subdomains ("*.example.com") matches every name beneath the suffix,
	// not the suffix itself.
	Subdomains
	// Network matches IP addresses in a prefix (a single address is a /32
	// or /128), both as literal targets and as the resolved addresses of
	// an allowed name that would otherwise be refused as private.
	Network
	// Everything ("*", allow lists only) matches every name and every
	// public address.
	Everything
)

// Rule is one parsed allow or deny entry. Port 0 means any port.
type Rule struct {
	Kind   RuleKind
	Name   string       // Exact: the name; Subdomains: the suffix without "*."
	Prefix netip.Prefix // Network
	Port   uint16
	Text   string // as written, for reports ("the rule that decided")
}

// ErrRule is wrapped by every refusal of ParseRule.
var ErrRule = errors.New("invalid network rule")

func ruleErr(s, why string) error { return fmt.Errorf("%w %q: %s", ErrRule, clip(s), why) }

// ParseRule parses one rule: host, host:port, *.suffix[:port],
// [IPv6][:port], an IPv4 address[:port], a CIDR, or "*" (allow lists
// only: pass allowStar). Wildcards over a public suffix (*.com, *.co.uk)
// are refused: they would allow most of the internet while reading like
// one site.
func ParseRule(s string, allowStar bool) (Rule, error) {
	raw := s
	s = strings.TrimSpace(s)
	if s == "*" {
		if !allowStar {
			return Rule{}, ruleErr(raw, `"*" is only allowed in the allow list`)
		}
		return Rule{Kind: Everything, Text: s}, nil
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return Rule{}, ruleErr(raw, "not a CIDR")
		}
		return Rule{Kind: Network, Prefix: p.Masked(), Text: s}, nil
	}
	host, port, err := splitRule(s)
	if err != nil {
		return Rule{}, ruleErr(raw, err.Error())
	}
	if suffix, ok := strings.CutPrefix(host, "*."); ok {
		t, err := ParseHost(suffix)
		if err != nil || t.IsIP() {
			return Rule{}, ruleErr(raw, `want "*.name"`)
		}
		if why := overBroad(t.Name); why != "" {
			return Rule{}, ruleErr(raw, why)
		}
		return Rule{Kind: Subdomains, Name: t.Name, Port: port, Text: s}, nil
	}
	if strings.Contains(host, "*") {
		return Rule{}, ruleErr(raw, `a wildcard is only "*." at the start`)
	}
	t, err := ParseHost(host)
	if err != nil {
		return Rule{}, ruleErr(raw, strings.TrimPrefix(err.Error(), ErrAuthority.Error()+" "))
	}
	if t.IsIP() {
		return Rule{Kind: Network, Prefix: netip.PrefixFrom(t.Addr, t.Addr.BitLen()), Port: port, Text: s}, nil
	}
	return Rule{Kind: Exact, Name: t.Name, Port: port, Text: s}, nil
}

// splitRule separates an optional port; an unbracketed IPv6 address has
// no port (its colons are the address).
func splitRule(s string) (string, uint16, error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("unbalanced brackets")
		}
		if end == len(s)-1 {
			return s, 0, nil
		}
		if s[end+1] != ':' {
			return "", 0, errors.New("want [IPv6]:port")
		}
		p, err := parsePort(s[end+2:])
		return s[:end+1], p, err
	}
	if strings.Count(s, ":") > 1 {
		return s, 0, nil
	}
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return s, 0, nil
	}
	p, err := parsePort(port)
	return host, p, err
}

// ParseRules parses a list, with presets ("@go", "@npm", …) expanded.
// Every error is returned, joined, so a policy file shows all its mistakes.
func ParseRules(list []string, allowStar bool) ([]Rule, error) {
	var out []Rule
	var errs []error
	for _, s := range list {
		entries := []string{s}
		if name, ok := strings.CutPrefix(strings.TrimSpace(s), "@"); ok {
			hosts, ok := Presets[name]
			if !ok {
				errs = append(errs, ruleErr(s, "unknown preset (known: "+presetNames()+")"))
				continue
			}
			entries = hosts
		}
		for _, e := range entries {
			r, err := ParseRule(e, allowStar)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, r)
		}
	}
	return out, errors.Join(errs...)
}

// matchesName reports whether r matches the name at port (Exact,
// Subdomains and Everything rules).
func (r Rule) matchesName(name string, port uint16) bool {
	if r.Port != 0 && r.Port != port {
		return false
	}
	switch r.Kind {
	case Everything:
		return true
	case Exact:
		return name == r.Name
	case Subdomains:
		return strings.HasSuffix(name, "."+r.Name)
	}
	return false
}

// matchesAddr reports whether r names the address explicitly (Network).
func (r Rule) matchesAddr(a netip.Addr, port uint16) bool {
	if r.Port != 0 && r.Port != port {
		return false
	}
	return r.Kind == Network && r.Prefix.Contains(a.Unmap())
}
