package policy

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/explain")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", "explain", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

func TestExplainGolden(t *testing.T) {
	carve := wsDefaults()
	carve.Entries = []Entry{{Path: "/home/u/.ssh", Access: Deny}, {Path: "/repo/vendor", Access: Read}, {Path: "/repo/vendor/patches", Access: Write}}
	carve.Network = Network{Mode: NetDomains, Domains: []string{"proxy.golang.org", "*.github.com"}}
	carve.Limits = Limits{WallClock: 10 * time.Minute, MemoryBytes: 4 << 30, Processes: 512}
	carve.ExtraProtected = []string{".env"}
	allow := wsDefaults()
	allow.Baseline = Deny
	allow.Entries = []Entry{{Path: "/usr", Access: Read}, {Path: "/etc/ssl", Access: Read}}
	danger := wsDefaults()
	danger.Mode = DangerFullAccess
	for _, tc := range []struct {
		name  string
		req   Request
		d     Defaults
		paths []string
	}{
		{"workspace-write", Request{}, wsDefaults(), []string{"src/main.go", "/repo/.git/hooks/pre-commit", "/etc/passwd"}},
		{"carve-outs", Request{Entries: []Entry{{Path: "/repo/secrets", Access: Deny}}, Limits: &Limits{CPUTime: time.Minute}},
			carve, []string{"/repo/vendor/x.go", "/repo/vendor/patches/p.diff", "/repo/secrets/k", "/home/u/.ssh/id_ed25519", "/repo/.env"}},
		{"allow-list", Request{}, allow, []string{"/usr/bin/git", "/etc/passwd", "/repo/README.md"}},
		{"read-only", Request{Mode: modeP(ReadOnly)}, wsDefaults(), []string{"/repo/a"}},
		{"danger", Request{}, danger, []string{"/etc/shadow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := Explain(mustResolve(t, tc.req, tc.d), tc.paths)
			golden(t, tc.name+".txt.golden", []byte(e.Text()))
			b, err := json.MarshalIndent(e, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name+".json.golden", append(b, '\n'))
		})
	}
}

func TestExplainDecidingLayer(t *testing.T) {
	e := Explain(mustResolve(t, Request{}, wsDefaults()), []string{"/repo/.vscode/x", "/etc", "/repo/a/../b"})
	if l := e.Paths[0].Layer; l == nil || l.Origin != FromProtected || l.Path != "/repo/.vscode" || e.Paths[0].Access != Read {
		t.Errorf("path 0: %+v", e.Paths[0])
	}
	if e.Paths[1].Layer != nil || e.Paths[1].Access != Read {
		t.Errorf("path 1: %+v", e.Paths[1])
	}
	if e.Paths[2].Path != "/repo/b" || e.Paths[2].Access != Write {
		t.Errorf("path 2: %+v", e.Paths[2])
	}
}

func TestSummary(t *testing.T) {
	d := wsDefaults()
	d.Limits.WallClock = time.Minute
	got := mustResolve(t, Request{}, d).Summary()
	want := "mode=workspace-write network=deny baseline=read write-roots=2 re-denied=38 wall-clock=1m0s"
	if got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
