package domainnet

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
)

func domainsReq(net *confine.NetOptions) confine.Request {
	return confine.Request{Net: net, Policy: &policy.Policy{Mode: policy.WorkspaceWrite,
		Network: policy.Network{Mode: policy.NetDomains, Domains: []string{"example.com"}}}}
}

func TestHooksWire(t *testing.T) {
	var order []string
	dial := func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("first") }
	h, err := NewHooks(domainsReq(&confine.NetOptions{Dial: dial}))
	if err != nil {
		t.Fatal(err)
	}
	cmd := &confine.Cmd{
		Setup:   func(int) error { order = append(order, "backend-setup"); return nil },
		Cleanup: func() { order = append(order, "backend-cleanup") },
	}
	stops := 0
	var served *netproxy.Proxy
	h.Wire(cmd, func(p *netproxy.Proxy) error { order = append(order, "serve"); served = p; return nil },
		func() ([]netproxy.Event, int, bool) {
			order = append(order, "stop")
			stops++
			if stops > 1 { // a second Cleanup must not wipe the decisions
				return nil, 0, false
			}
			return []netproxy.Event{{Host: "example.com"}}, 3, true
		})
	// SetNet before the start replaces only what it carries.
	report := func(netproxy.Event) {}
	cmd.SetNet(&confine.NetOptions{Report: report})
	if err := cmd.Setup(1); err != nil {
		t.Fatal(err)
	}
	if served.Report == nil || served.Dial == nil {
		t.Fatalf("served proxy lost settings: report %v dial %v", served.Report != nil, served.Dial != nil)
	}
	cmd.Cleanup()
	cmd.Cleanup()
	if got := strings.Join(order, ","); got != "serve,backend-setup,stop,backend-cleanup,stop,backend-cleanup" {
		t.Fatalf("order %s", got)
	}
	if log := cmd.NetEvents(); len(log.Events) != 1 || log.Dropped != 3 {
		t.Fatalf("NetEvents %+v", log)
	}
}

// A proxy that cannot serve stops the start: the backend's own Setup
// (which writes the spec, releasing the command) never runs.
func TestHooksServeFails(t *testing.T) {
	h, err := NewHooks(domainsReq(nil))
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	cmd := &confine.Cmd{Setup: func(int) error { ran = true; return nil }}
	h.Wire(cmd, func(*netproxy.Proxy) error { return errors.New("no listeners") },
		func() ([]netproxy.Event, int, bool) { return nil, 0, false })
	if err := cmd.Setup(1); err == nil || !strings.Contains(err.Error(), "policy proxy: no listeners") || ran {
		t.Fatalf("err %v, backend setup ran %v", err, ran)
	}
}

func TestNewHooksBadRule(t *testing.T) {
	req := domainsReq(nil)
	req.Policy.Network.Domains = []string{"exa mple..com:99999"}
	if _, err := NewHooks(req); err == nil {
		t.Fatal("an invalid rule was accepted")
	}
}
