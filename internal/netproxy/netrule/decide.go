package netrule

import (
	"net/netip"
)

// Verdict is the proxy's answer for one connection.
type Verdict int

const (
	Deny Verdict = iota
	Allow
	// Ask: no rule names the host and the deployment lets a person decide.
	Ask
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	}
	return "deny"
}

// Reasons a connection is refused, as the proxy reports them
// (X-Proxy-Error, the run's network violation).
const (
	ReasonAllowlist   = "blocked-by-allowlist"
	ReasonDenylist    = "blocked-by-denylist"
	ReasonPrivate     = "private-address"
	ReasonSNIMismatch = "sni-mismatch"
	ReasonHostMatch   = "host-mismatch"
	ReasonBadRequest  = "invalid-destination"
	ReasonDeclined    = "declined-by-user"
)

// Decision is a verdict with the rule that decided (its text as written,
// "" when no rule matched) and, for a denial, the reason and any
// explanation the policy attached to that rule.
type Decision struct {
	Verdict Verdict
	Rule    string
	Reason  string
	Why     string // the policy's own words for a deny rule, if any
}

// Rules is a compiled allow/deny policy. The zero value denies everything.
type Rules struct {
	Allow, Deny []Rule
	// Explain maps a deny rule's text to the reason shown to the model
	// ("pastebin.com" → "exfiltration risk").
	Explain map[string]string
	// AskUnlisted turns "no rule matched" into Ask instead of Deny.
	AskUnlisted bool
}

// Decide judges a target before anything is resolved. Deny always wins;
// an IP literal is allowed only by a Network rule that contains it (a
// name rule never covers an address, and "*" covers only public ones).
func (r Rules) Decide(t Target) Decision {
	if t.IsIP() {
		return r.decideAddr(t.Addr, t.Port)
	}
	for _, d := range r.Deny {
		if d.matchesName(t.Name, t.Port) {
			return Decision{Verdict: Deny, Rule: d.Text, Reason: ReasonDenylist, Why: r.Explain[d.Text]}
		}
	}
	for _, a := range r.Allow {
		if a.matchesName(t.Name, t.Port) {
			return Decision{Verdict: Allow, Rule: a.Text}
		}
	}
	return r.unlisted()
}

func (r Rules) unlisted() Decision {
	if r.AskUnlisted {
		return Decision{Verdict: Ask, Reason: ReasonAllowlist}
	}
	return Decision{Verdict: Deny, Reason: ReasonAllowlist}
}

func (r Rules) decideAddr(a netip.Addr, port uint16) Decision {
	for _, d := range r.Deny {
		if d.matchesAddr(a, port) {
			return Decision{Verdict: Deny, Rule: d.Text, Reason: ReasonDenylist, Why: r.Explain[d.Text]}
		}
	}
	for _, al := range r.Allow {
		if al.matchesAddr(a, port) {
			return Decision{Verdict: Allow, Rule: al.Text}
		}
	}
	for _, al := range r.Allow {
		if al.Kind == Everything && (al.Port == 0 || al.Port == port) && Private(a) == "" {
			return Decision{Verdict: Allow, Rule: al.Text}
		}
	}
	if Private(a) != "" {
		return Decision{Verdict: Deny, Reason: ReasonPrivate, Why: Private(a)}
	}
	return r.unlisted()
}

// CheckResolved judges the addresses an allowed name resolved to: every
// one must be public, or named explicitly by a Network allow rule, and
// none denied. It returns the addresses that may be dialled — the proxy
// dials only those, never resolving again — or a denial naming the first
// offending address. One bad address refuses the name: a resolver that
// mixes a public and a private answer is an attack, not a fallback.
func (r Rules) CheckResolved(port uint16, addrs []netip.Addr) ([]netip.Addr, Decision) {
	if len(addrs) == 0 {
		return nil, Decision{Verdict: Deny, Reason: ReasonBadRequest, Why: "the name did not resolve"}
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		a = a.Unmap()
		for _, d := range r.Deny {
			if d.matchesAddr(a, port) {
				return nil, Decision{Verdict: Deny, Rule: d.Text, Reason: ReasonDenylist, Why: r.Explain[d.Text]}
			}
		}
		if why := Private(a); why != "" && !r.namesAddr(a, port) {
			return nil, Decision{Verdict: Deny, Reason: ReasonPrivate, Why: a.String() + " is " + why}
		}
		out = append(out, a)
	}
	return out, Decision{Verdict: Allow}
}

func (r Rules) namesAddr(a netip.Addr, port uint16) bool {
	for _, al := range r.Allow {
		if al.matchesAddr(a, port) {
			return true
		}
	}
	return false
}
