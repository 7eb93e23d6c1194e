package policy

import (
	"slices"
	"strings"
)

// resolveNetwork: the deployment's network is the ceiling, an approval's
// network raises it (domains are added), and a request may ask for any
// network beneath. Under domains, narrowing means a subset of the allowed
// domains; a request for domains mode with no domains keeps the allowed
// list.
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
		return allowed, nil
	}
	if allowed.Mode == NetDomains {
		for _, d := range asked.Domains {
			if !domainAllowed(allowed.Domains, d) {
				return Network{}, &EscalationError{What: "network domain", Path: d}
			}
		}
	}
	return asked, nil
}

// widenNetwork is the union of two networks.
func widenNetwork(a, b Network) Network {
	switch {
	case a.Mode > b.Mode:
		return a
	case b.Mode > a.Mode:
		return b
	case a.Mode == NetDomains:
		return Network{Mode: NetDomains, Domains: normDomains(append(slices.Clone(a.Domains), b.Domains...))}
	}
	return a
}

// normNetwork validates a network: a known mode, domains only (and at least
// one) under NetDomains, each a plausible host name or "*.suffix".
func normNetwork(field string, n Network) (Network, error) {
	switch {
	case !n.Mode.Valid():
		return Network{}, &InvalidError{Field: field, Value: n.Mode.String()}
	case n.Mode != NetDomains && len(n.Domains) > 0:
		return Network{}, &InvalidError{Field: field, Value: n.Mode.String(), Reason: "domains are only allowed with mode domains"}
	case n.Mode == NetDomains && len(n.Domains) == 0:
		return Network{Mode: NetDomains}, &InvalidError{Field: field, Value: n.Mode.String(), Reason: "mode domains needs at least one domain"}
	}
	for _, d := range n.Domains {
		if !validDomain(normDomain(d)) {
			return Network{}, &InvalidError{Field: field + " domain", Value: d, Reason: `want a host name or "*.suffix"`}
		}
	}
	return Network{Mode: n.Mode, Domains: normDomains(n.Domains)}, nil
}

func normDomain(d string) string { return strings.TrimSuffix(strings.ToLower(d), ".") }

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

// validDomain accepts letters, digits, '-' and '.', in non-empty labels of
// at most 63 bytes, optionally led by one "*." wildcard label.
func validDomain(d string) bool {
	d = strings.TrimPrefix(d, "*.")
	if d == "" || len(d) > 253 {
		return false
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

// domainAllowed: "example.com" allows only itself; "*.example.com" allows
// every name beneath it (and narrower wildcards), not example.com itself.
func domainAllowed(allowed []string, d string) bool {
	for _, a := range allowed {
		if a == d {
			return true
		}
		if suffix, ok := strings.CutPrefix(a, "*"); ok && strings.HasSuffix(d, suffix) && len(d) > len(suffix) {
			return true
		}
	}
	return false
}
