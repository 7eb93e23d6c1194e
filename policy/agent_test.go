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

func TestAgentProfile(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(home+"/.ssh", 0o700); err != nil {
		t.Fatal(err)
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	d := AgentProfile(home, exists)
	want := AgentDefaults()
	want.Entries = []Entry{{Path: home + "/.ssh", Access: Deny}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("AgentProfile = %+v, want %+v", d, want)
	}
	if d := AgentProfile("", exists); !reflect.DeepEqual(d, AgentDefaults()) {
		t.Fatalf("no home: %+v, want AgentDefaults", d)
	}
	d.Root = t.TempDir()
	p, err := Resolve(Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if p.AccessAt(home+"/.ssh/id_ed25519") != Deny || p.AccessAt(home) != Read {
		t.Fatalf("credential dir %v, home %v", p.AccessAt(home+"/.ssh/id_ed25519"), p.AccessAt(home))
	}
}

// An allow-list asked for explicitly is never read as the zero Defaults
// (which a facade turns into the read-everything agent profile), even with
// no entries at all.
func TestAllowList(t *testing.T) {
	for _, entries := range [][]Entry{nil, {{Path: "/usr", Access: Read}}} {
		d := AllowList(entries...)
		if d.IsZero() || d.Baseline != Deny {
			t.Fatalf("AllowList(%v): zero %v baseline %v", entries, d.IsZero(), d.Baseline)
		}
		d.Root = t.TempDir()
		p, err := Resolve(Request{}, d)
		if err != nil {
			t.Fatal(err)
		}
		if p.AccessAt("/etc/passwd") != Deny || p.AccessAt(d.Root) != Write {
			t.Fatalf("AllowList(%v): /etc/passwd %v, root %v", entries, p.AccessAt("/etc/passwd"), p.AccessAt(d.Root))
		}
		if len(entries) > 0 && p.AccessAt("/usr/bin") != Read {
			t.Fatalf("listed /usr: %v", p.AccessAt("/usr/bin"))
		}
	}
	// The caller's slice is copied.
	e := []Entry{{Path: "/a", Access: Read}}
	d := AllowList(e...)
	e[0].Path = "/b"
	if d.Entries[0].Path != "/a" {
		t.Fatal("AllowList shares the caller's entries")
	}
}
