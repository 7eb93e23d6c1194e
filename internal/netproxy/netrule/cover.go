package netrule

import "strings"

// Covers reports whether everything o allows, r allows too: how a request
// is checked to only narrow a ceiling. It errs towards "no": a rule it
// cannot prove inside r is not covered.
//
//   - the ports: r any port, or the same port as o (o any port is covered
//     only by r any port);
//   - "*" covers every name rule and itself, never an address rule (it
//     allows only public addresses; a CIDR may name private ones);
//   - an exact name covers only itself;
//   - "*.s" covers names strictly beneath s and "*.t" where t is s or
//     beneath it;
//   - a CIDR covers the addresses and ranges inside it.
func (r Rule) Covers(o Rule) bool {
	if r.Port != 0 && r.Port != o.Port {
		return false
	}
	switch r.Kind {
	case Everything:
		return o.Kind == Everything || o.Kind == Exact || o.Kind == Subdomains
	case Exact:
		return o.Kind == Exact && o.Name == r.Name
	case Subdomains:
		switch o.Kind {
		case Exact:
			return strings.HasSuffix(o.Name, "."+r.Name)
		case Subdomains:
			return o.Name == r.Name || strings.HasSuffix(o.Name, "."+r.Name)
		}
	case Network:
		return o.Kind == Network && r.Prefix.Addr().Is4() == o.Prefix.Addr().Is4() &&
			r.Prefix.Bits() <= o.Prefix.Bits() && r.Prefix.Contains(o.Prefix.Addr())
	}
	return false
}
