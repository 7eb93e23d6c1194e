package bwrap

import (
	"errors"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// The domains network is refused with the reason, never run with the
// network silently off.
func TestDomainsRefused(t *testing.T) {
	p := New(Options{})
	testenv.Need(t, "bwrap", p.Available())
	root := t.TempDir()
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read,
		Network: policy.Network{Mode: policy.NetDomains, Domains: []string{"pkg.test"}},
		Layers:  []policy.Layer{{Path: root, Access: policy.Write, Origin: policy.FromMode}}}
	_, err := p.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: pol})
	if !errors.Is(err, policy.ErrUnavailable) || !strings.Contains(err.Error(), "policy proxy") {
		t.Fatalf("got %v", err)
	}
}
