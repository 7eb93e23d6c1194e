package domainnet

import (
	"errors"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

func TestNeeded(t *testing.T) {
	for _, tc := range []struct {
		p    *policy.Policy
		want bool
	}{
		{nil, false},
		{&policy.Policy{Mode: policy.WorkspaceWrite, Network: policy.Network{Mode: policy.NetDomains}}, true},
		{&policy.Policy{Mode: policy.WorkspaceWrite, Network: policy.Network{Mode: policy.NetDeny}}, false},
		{&policy.Policy{Mode: policy.WorkspaceWrite, Network: policy.Network{Mode: policy.NetAllowAll}}, false},
		{&policy.Policy{Mode: policy.DangerFullAccess, Network: policy.Network{Mode: policy.NetDomains}}, false},
	} {
		if got := Needed(tc.p); got != tc.want {
			t.Errorf("Needed(%+v) = %v", tc.p, got)
		}
	}
}

// Prepare makes the pair and the stub's resolv.conf; Close removes the
// file and closes both ends; an invalid rule is an error and leaves
// nothing behind.
func TestPrepareAndClose(t *testing.T) {
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Network: policy.Network{Mode: policy.NetDomains, Domains: []string{"pkg.test"}}}
	d, err := Prepare(confine.Request{Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(d.ResolvPath())
	if err != nil || string(data) != ResolvConf {
		t.Fatalf("resolv.conf %q: %v", data, err)
	}
	if st, err := os.Stat(d.ResolvPath()); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("resolv.conf mode: %v %v", st, err)
	}
	ini, path := d.InitFile(), d.ResolvPath()
	if ini == nil {
		t.Fatal("no init end")
	}
	d.Close()
	d.Close() // twice is harmless
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("resolv.conf left behind: %v", err)
	}
	if _, err := ini.Stat(); err == nil {
		t.Fatal("the init end is still open")
	}

	p.Network.Domains = []string{"*.com"}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Prepare would write
	if _, err := Prepare(confine.Request{Policy: p}); err == nil {
		t.Fatal("an over-broad rule was accepted")
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("a refused Prepare left %v", left)
	}
}
