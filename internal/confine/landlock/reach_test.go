package landlock

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func TestOutOfReach(t *testing.T) {
	deny := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Network: policy.Network{Mode: policy.NetDeny}}
	all := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Network: policy.Network{Mode: policy.NetAllowAll}}
	cases := []struct {
		name      string
		p         *policy.Policy
		abi       int
		has, lack []string
	}{
		{"abi7 deny", deny, 7, []string{"Landlock ABI 7", "its init included", "IP networking", "host unix sockets by path"}, nil},
		{"abi5: no scopes", deny, 5, []string{"Landlock ABI 5"}, []string{"its init included"}},
		{"allow-all network", all, 7, []string{"its init included"}, []string{"IP networking"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := outOfReach(c.p, c.abi)
			if !strings.HasPrefix(got, "out of reach: ") {
				t.Fatalf("%q", got)
			}
			for _, h := range c.has {
				if !strings.Contains(got, h) {
					t.Errorf("missing %q in %q", h, got)
				}
			}
			for _, l := range c.lack {
				if strings.Contains(got, l) {
					t.Errorf("claims %q in %q", l, got)
				}
			}
		})
	}
	// Every run's enforcement says it, first.
	e := Enforce(deny, NewPlan(deny), 7)
	if len(e.Reasons) == 0 || !strings.HasPrefix(e.Reasons[0], "out of reach: ") {
		t.Fatalf("reasons %q", e.Reasons)
	}
}
