package sandbox

import (
	"context"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/outcome"
)

// NetworkDecision is one connection the domains network's policy proxy
// decided: how it arrived (http, connect, socks5, captured), where it
// went, the verdict and the rule that decided, the reason for a refusal,
// and what it carried.
type NetworkDecision struct {
	Via        string `json:"via"`
	Host       string `json:"host"`
	Port       int    `json:"port,omitempty"`
	Verdict    string `json:"verdict"`
	Rule       string `json:"rule,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Why        string `json:"why,omitempty"`
	BytesUp    int64  `json:"bytesUp"`
	BytesDown  int64  `json:"bytesDown"`
	DurationMs int64  `json:"durationMs"`
}

// netEvidence is the run's proxy decisions (for --json and the audit
// trail) and its refusals (for classification and narration).
func netEvidence(cmd *confine.Cmd) ([]NetworkDecision, []outcome.NetBlock, int) {
	if cmd.NetEvents == nil {
		return nil, nil, 0
	}
	log := cmd.NetEvents()
	var out []NetworkDecision
	var blocks []outcome.NetBlock
	for _, e := range log.Events {
		out = append(out, NetworkDecision{
			Via: e.Via, Host: netproxy.Printable(e.Host), Port: int(e.Port), Verdict: e.Verdict.String(),
			Rule: e.Rule, Reason: e.Reason, Why: netproxy.Printable(e.Why),
			BytesUp: e.Up, BytesDown: e.Down, DurationMs: e.Duration.Milliseconds(),
		})
		if e.Verdict != netproxy.Allow {
			blocks = append(blocks, outcome.NetBlock{Host: netproxy.Printable(e.Host), Port: int(e.Port), Rule: e.Rule, Reason: e.Reason, Why: netproxy.Printable(e.Why)})
		}
	}
	return out, blocks, log.Dropped
}

// netOptions carries the caller's NetworkAsk to the proxy.
func netOptions(o ExecOptions) *confine.NetOptions {
	if o.NetworkAsk == nil {
		return nil
	}
	ask := o.NetworkAsk
	return &confine.NetOptions{Ask: func(ctx context.Context, t netproxy.Target) (netproxy.Verdict, error) {
		ok, err := ask(ctx, t.Host(), int(t.Port))
		if err != nil || !ok {
			return netproxy.Deny, err
		}
		return netproxy.Allow, nil
	}}
}
