package confine

import (
	"context"
	"net"

	"github.com/ringfence/ringfence/internal/netproxy"
)

// NetOptions are the policy proxy's settings for one run under the domains
// network. The zero value resolves with the host's resolver, dials
// directly and blocks every host no rule names.
type NetOptions struct {
	// Resolver and Dial replace the host's (tests: a test network).
	Resolver netproxy.Resolver
	Dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	// Ask puts a host no rule names to a person (policy Network.Ask).
	Ask func(ctx context.Context, t netproxy.Target) (netproxy.Verdict, error)
	// Report sees each decision as it is made (an audit trail).
	Report func(netproxy.Event)
}

// NetLog is what the proxy decided during one run: every decision up to
// netproxy.MaxEvents, and how many more were not recorded.
type NetLog struct {
	Events  []netproxy.Event
	Dropped int
}
