package policy

import (
	"os"
	"reflect"
	"testing"
	"time"
)

func TestAgentDefaultsResolve(t *testing.T) {
	root, tmp := t.TempDir(), t.TempDir()
	d := AgentDefaults()
	d.Root, d.TempDir = root, tmp
	p, err := Resolve(Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != WorkspaceWrite || p.Baseline != Read || p.Network.Mode != NetDeny {
		t.Fatalf("agent profile resolved to mode %v baseline %v network %v", p.Mode, p.Baseline, p.Network.Mode)
	}
	if p.AccessAt(root) != Write || p.AccessAt(tmp) != Write || p.AccessAt("/etc") != Read {
		t.Fatalf("access: root %v tmp %v /etc %v", p.AccessAt(root), p.AccessAt(tmp), p.AccessAt("/etc"))
	}
	if p.AccessAt(root+"/.git/hooks") != Read {
		t.Fatalf(".git/hooks is %v, want protected read", p.AccessAt(root+"/.git/hooks"))
	}
	// Each call is a fresh value: a caller's change does not leak.
	d.Entries = append(d.Entries, Entry{Path: "/x", Access: Deny})
	if AgentDefaults().Entries != nil {
		t.Fatal("AgentDefaults shares state between calls")
	}
}

func TestDefaultsIsZero(t *testing.T) {
	if d := (Defaults{}); !d.IsZero() {
		t.Fatal("zero Defaults not zero")
	}
	set := []func(*Defaults){
		func(d *Defaults) { d.Mode = WorkspaceWrite },
		func(d *Defaults) { d.Root = "/r" },
		func(d *Defaults) { d.TempDir = "/t" },
		func(d *Defaults) { d.Baseline = Read },
		func(d *Defaults) { d.Entries = []Entry{} },
		func(d *Defaults) { d.Network.Mode = NetLoopback },
		func(d *Defaults) { d.Network.Domains = []string{"a"} },
		func(d *Defaults) { d.Network.Deny = []string{"a"} },
		func(d *Defaults) { d.Network.Reasons = map[string]string{} },
		func(d *Defaults) { d.Network.Ask = true },
		func(d *Defaults) { d.Limits.Processes = 1 },
		func(d *Defaults) { d.ProtectGit = GitReadOnly },
		func(d *Defaults) { d.ExtraProtected = []string{".env"} },
		func(d *Defaults) { d.AllowAliasedWrites = true },
		func(d *Defaults) { d.UnixSockets = []string{"/s"} },
		func(d *Defaults) { d.ReadFile = os.ReadFile },
		func(d *Defaults) { d.Now = time.Now },
		func(d *Defaults) { d.Restrictions = []Entry{} },
		func(d *Defaults) { d.ExtraProtectedNames = []string{} },
	}
	for i, f := range set {
		var d Defaults
		f(&d)
		if d.IsZero() {
			t.Errorf("case %d: a set field still reads as zero", i)
		}
	}
}

// TestDefaultsIsZeroCoversEveryField fails when Defaults grows a field that
// IsZero (and the case list above) does not know yet.
func TestDefaultsIsZeroCoversEveryField(t *testing.T) {
	if n := reflect.TypeOf(Defaults{}).NumField(); n != 15 {
		t.Fatalf("Defaults has %d fields; teach IsZero and TestDefaultsIsZero the new one", n)
	}
}
