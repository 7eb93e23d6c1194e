package tools

import (
	"context"

	"github.com/ringfence/ringfence/policy"
	"strconv"
	"strings"
)

// askNetwork is run_command's NetworkAsk: under the domains network with
// asking on, a connection to a host no rule names is put to the person
// through the same gate as commands (allow once, for this session,
// decline; no gate, a timeout or an error blocks it). The session
// remembers its answers — approve-session and decline alike — so one host
// is asked about once, and questions are put one at a time so a command
// opening many connections cannot flood the person.
func (s *Set) askNetwork(ctx context.Context, host string, port int) (bool, error) {
	key := netKey(host, port)
	s.netAsk.Lock()
	defer s.netAsk.Unlock()
	s.mu.Lock()
	v, known := s.netAnswers[key]
	s.mu.Unlock()
	if known {
		return v, nil
	}
	q := Question{
		Tool: "run_command",
		Summary: "A sandboxed command wants to connect to " + key +
			", which no network rule allows or denies. Allow this connection?",
		Permissions: []string{"network:" + key},
	}
	d, o, _ := s.ask(ctx, q)
	switch {
	case o != nil && ctx.Err() != nil:
		return false, ctx.Err() // the command ended: remember nothing
	case o != nil:
		s.rememberNet(key, false) // declined (or no answer): blocked for the session
		return false, nil
	case d == ApproveSession:
		s.rememberNet(key, true)
	}
	return true, nil
}

func (s *Set) rememberNet(key string, v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.netAnswers == nil {
		s.netAnswers = map[string]bool{}
	}
	if len(s.netAnswers) < 1024 {
		s.netAnswers[key] = v
	}
}

// netKey is host:port, IPv6 bracketed; the host is already strictly
// parsed by the proxy (no spaces, no control bytes).
func netKey(host string, port int) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}

// domainsNetwork reports whether this deployment's network is the domains
// network. Then approving a command that uses the network does not widen
// it to allow-all: every connection still passes the policy proxy, which
// asks about unlisted hosts itself (askNetwork) when asking is on.
func (s *Set) domainsNetwork() bool {
	pol, err := s.sb.Policy(policy.Request{SessionID: s.opts.SessionID})
	return err == nil && pol.Network.Mode == policy.NetDomains
}
