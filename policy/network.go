package policy

import (
	"maps"
	"slices"
	"strings"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
)

// resolveNetwork: the deployment's network is the ceiling, an approval's
// network raises it (allow rules are added), and a request may ask for any
// network beneath. Under domains, narrowing means allow rules each covered
// by one of the ceiling's, the ceiling's deny rules kept (a request may add
// more), and asking a person only where the ceiling lets it; a request for
// domains mode with no domains keeps the allowed list.
func resolveNetwork(req *Network, def Network, g *Grant) (Network, error) {
	allowed, err := normNetwork("network", def)
	if err != nil {
		return Network{}, err
	}
	if g != nil && g.Network != nil {
		extra, err := normNetwork("approval network", *g.Network)
		if err != nil {
			return Network{}, err
		}
		allowed = widenNetwork(allowed, extra)
	}
	if req == nil {
		return allowed, nil
	}
	asked, err := normNetwork("request network", *req)
	if err != nil && !(req.Mode == NetDomains && len(req.Domains) == 0) {
		return Network{}, err
	}
	if asked.Mode > allowed.Mode {
		return Network{}, &EscalationError{What: "network " + asked.Mode.String()}
	}
	if asked.Mode != NetDomains {
		return asked, nil
	}
	if len(asked.Domains) == 0 {
		if allowed.Mode != NetDomains {
			return Network{}, &InvalidError{Field: "request network", Value: "domains", Reason: "mode domains needs at least one domain"}
		}
		// Keep the ceiling's list; the request's deny rules still narrow it.
		req2 := *req
		req2.Domains = allowed.Domains
		if asked, err = normNetwork("request network", req2); err != nil {
			return Network{}, err
		}
	}
	if allowed.Mode == NetDomains {
		for _, d := range asked.Domains {
			if !domainAllowed(allowed.Domains, d) {
				return Network{}, &EscalationError{What: "network domain", Path: d}
			}
		}
		asked.Deny = normDomains(append(slices.Clone(allowed.Deny), asked.Deny...))
		asked.Reasons = mergeReasons(asked.Reasons, allowed.Reasons)
		asked.Ask = asked.Ask && allowed.Ask
	} else if asked.Ask && allowed.Mode != NetAllowAll {
		return Network{}, &EscalationError{What: "network ask"}
	}
	return asked, nil
}

// mergeReasons: the ceiling's words win over a request's for one rule.
func mergeReasons(req, ceiling map[string]string) map[string]string {
	if len(req) == 0 && len(ceiling) == 0 {
		return nil
	}
	out := maps.Clone(req)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, ceiling)
	return out
}

// widenNetwork is the union of two networks. Deny rules and reasons come
// from a only (the ceiling): an approval adds hosts, it never lifts a deny.
func widenNetwork(a, b Network) Network {
	switch {
	case a.Mode > b.Mode:
		return a
	case b.Mode > a.Mode:
		return b
	case a.Mode == NetDomains:
		out := a.clone()
		out.Domains = normDomains(append(slices.Clone(a.Domains), b.Domains...))
		out.Ask = a.Ask || b.Ask
		return out
	}
	return a
}

func (n Network) clone() Network {
	n.Domains = slices.Clone(n.Domains)
	n.Deny = slices.Clone(n.Deny)
	n.Reasons = maps.Clone(n.Reasons)
	return n
}

// normNetwork validates a network: a known mode; allow and deny rules,
// reasons and asking only under NetDomains (and at least one allow rule);
// every rule as netrule.ParseRules reads it, so a mistake is named here
// and not discovered by a backend; each reason attached to a deny rule.
func normNetwork(field string, n Network) (Network, error) {
	switch {
	case !n.Mode.Valid():
		return Network{}, &InvalidError{Field: field, Value: n.Mode.String()}
	case n.Mode != NetDomains && (len(n.Domains) > 0 || len(n.Deny) > 0 || len(n.Reasons) > 0 || n.Ask):
		return Network{}, &InvalidError{Field: field, Value: n.Mode.String(), Reason: "domains, deny rules, reasons and asking are only allowed with mode domains"}
	case n.Mode == NetDomains && len(n.Domains) == 0:
		return Network{Mode: NetDomains}, &InvalidError{Field: field, Value: n.Mode.String(), Reason: "mode domains needs at least one domain"}
	}
	for _, d := range n.Domains {
		if _, err := netrule.ParseRules([]string{d}, true); err != nil {
			return Network{}, &InvalidError{Field: field + " domain", Value: d, Reason: ruleReason(err)}
		}
	}
	for _, d := range n.Deny {
		if _, err := netrule.ParseRules([]string{d}, false); err != nil {
			return Network{}, &InvalidError{Field: field + " deny", Value: d, Reason: ruleReason(err)}
		}
	}
	deny := normDomains(n.Deny)
	for k, v := range n.Reasons {
		if !slices.Contains(deny, normDomain(k)) {
			return Network{}, &InvalidError{Field: field + " reason", Value: k, Reason: "a reason must name one of the deny rules"}
		}
		if strings.ContainsAny(v, "\r\n\x00") || len(v) > 200 {
			return Network{}, &InvalidError{Field: field + " reason", Value: k, Reason: "a reason is one line of at most 200 bytes"}
		}
	}
	out := Network{Mode: n.Mode, Domains: normDomains(n.Domains), Deny: deny, Ask: n.Ask}
	if len(n.Reasons) > 0 {
		out.Reasons = make(map[string]string, len(n.Reasons))
		for k, v := range n.Reasons {
			out.Reasons[normDomain(k)] = v
		}
	}
	return out, nil
}

// ruleReason is netproxy's explanation without the repeated rule text.
func ruleReason(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

func normDomain(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

// normDomains lower-cases, sorts and de-duplicates, so one policy prints
// one way.
func normDomains(ds []string) []string {
	if len(ds) == 0 {
		return nil
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = normDomain(d)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// validDomain reports whether d is an allow rule netproxy accepts.
func validDomain(d string) bool {
	_, err := netrule.ParseRules([]string{d}, true)
	return err == nil
}

// domainAllowed reports whether every rule d expands to is covered by a
// rule of allowed: "example.com" allows only itself, "*.example.com" every
// name beneath it (and narrower wildcards) but not example.com itself, a
// CIDR the addresses and ranges inside it, "*" every name. An unparsable
// rule is never allowed.
func domainAllowed(allowed []string, d string) bool {
	ceiling, err := netrule.ParseRules(allowed, true)
	if err != nil {
		return false
	}
	asked, err := netrule.ParseRules([]string{d}, true)
	if err != nil {
		return false
	}
	for _, r := range asked {
		if !slices.ContainsFunc(ceiling, func(a netrule.Rule) bool { return a.Covers(r) }) {
			return false
		}
	}
	return true
}

// ProxyRules compiles a domains network into the proxy's rules.
func (n Network) ProxyRules() (netrule.Rules, error) {
	if n.Mode != NetDomains {
		return netrule.Rules{}, &InvalidError{Field: "network", Value: n.Mode.String(), Reason: "only mode domains has proxy rules"}
	}
	allow, err := netrule.ParseRules(n.Domains, true)
	if err != nil {
		return netrule.Rules{}, &InvalidError{Field: "network domain", Value: strings.Join(n.Domains, ","), Reason: err.Error()}
	}
	deny, err := netrule.ParseRules(n.Deny, false)
	if err != nil {
		return netrule.Rules{}, &InvalidError{Field: "network deny", Value: strings.Join(n.Deny, ","), Reason: err.Error()}
	}
	explain := map[string]string{}
	for _, d := range n.Deny {
		why, ok := n.Reasons[normDomain(d)]
		if !ok {
			continue
		}
		// A preset's reason explains every host it expands to.
		rs, _ := netrule.ParseRules([]string{d}, false)
		for _, r := range rs {
			explain[r.Text] = why
		}
	}
	return netrule.Rules{Allow: allow, Deny: deny, Explain: explain, AskUnlisted: n.Ask}, nil
}
