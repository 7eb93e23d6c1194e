package outcome

import (
	"strconv"
	"strings"
)

// NetBlock is one connection the domains network refused, as the model
// may be told it: where it went, the rule that decided ("" when none
// matched), the proxy's reason (blocked-by-allowlist, blocked-by-denylist,
// private-address, sni-mismatch, host-mismatch, invalid-destination,
// declined-by-user) and the policy's own words for a deny rule.
type NetBlock struct {
	Host   string `json:"host"`
	Port   int    `json:"port,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason"`
	Why    string `json:"why,omitempty"`
}

// ProxyEvidence is what the domains network's proxy refused during a run
// and the allowed domains, for the narration.
type ProxyEvidence struct {
	Proxy        []NetBlock
	ProxyAllowed []string
}

// ReasonProxy is the violation reason of a connection the domains
// network's proxy refused.
const ReasonProxy = "network-blocked"

// proxyDenied records the proxy's refusals as violations; a run with any
// is a denial whatever the command's exit (it may have carried on without
// what it was refused).
func proxyDenied(r *ExecClass, backend string, blocks []NetBlock) bool {
	for _, b := range blocks {
		if len(r.Violations) >= MaxViolations {
			break
		}
		r.Violations = dedupe(r.Violations, Violation{Backend: backend, Reason: ReasonProxy, Snippet: oneLine(cutUTF8(b.target()+" "+b.Reason, maxSnippet))})
	}
	return len(blocks) > 0
}

func (b NetBlock) target() string {
	if b.Port == 0 {
		return b.Host
	}
	if strings.Contains(b.Host, ":") {
		return "[" + b.Host + "]:" + strconv.Itoa(b.Port)
	}
	return b.Host + ":" + strconv.Itoa(b.Port)
}

// narrateBlocked is the sandbox-violation sentence when the network policy
// refused connections: the first refusal in full, with what to do, and
// the others listed.
func narrateBlocked(o Outcome, c Context) string {
	b := o.Blocked[0]
	text := "The sandbox blocked a connection to " + clean(b.target()) + ": " + blockedWhy(b, o.Allowed, c)
	if rest := o.Blocked[1:]; len(rest) > 0 {
		others := make([]string, 0, len(rest))
		for _, r := range rest {
			others = append(others, r.target()+" ("+r.Reason+")")
		}
		text += " It also blocked " + list(others) + "."
	}
	var files []string
	for _, v := range o.Violations {
		if !strings.HasPrefix(v, ReasonProxy) {
			files = append(files, v)
		}
	}
	if len(files) > 0 {
		text += " The sandbox also refused: " + strings.ReplaceAll(list(files), ", ", "; ") + "."
	}
	return text
}

func blockedWhy(b NetBlock, allowed []string, c Context) string {
	switch b.Reason {
	case "blocked-by-allowlist":
		if len(allowed) == 0 {
			return "no domain is allowed. " + c.allowDomain(b.Host)
		}
		return "it is not in the allowed domains (" + list(allowed) + "). " + c.allowDomain(b.Host)
	case "blocked-by-denylist":
		s := "the policy denies it (rule " + clean(b.Rule) + ")"
		if b.Why != "" {
			s += ": " + clean(b.Why)
		}
		return s + ". " + c.say(phDeniedDomain)
	case "private-address":
		return "the name leads to a private or local address, which the sandbox never connects to. Use a public host."
	case "sni-mismatch":
		return "the TLS handshake named a different host than the one the connection was opened for. Connect to the host you name."
	case "host-mismatch":
		return "the request's Host header named a different host than its target. Send each request to the host it names."
	case "declined-by-user":
		return "the user declined it."
	}
	return "the destination is not a valid host name and port. Name the host as letters, digits, '-' and dots."
}
