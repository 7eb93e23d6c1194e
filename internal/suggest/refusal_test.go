package suggest

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

const runJSON = `{
  "kind": "denied",
  "exitCode": 2,
  "violations": [
    {"backend": "linux", "reason": "read-only-filesystem", "path": "/src/app/ro/out.txt", "snippet": "sh: 1: cannot create /src/app/ro/out.txt: Read-only file system"},
    {"backend": "linux", "reason": "permission-denied", "path": "/home/u/.ssh/id_rsa", "snippet": "cat: /home/u/.ssh/id_rsa: Permission denied"},
    {"backend": "linux", "reason": "read-only-filesystem", "path": "/src/app/ro/out.txt", "snippet": "again"},
    {"backend": "linux", "reason": "policy-denied", "snippet": "no path here"},
    {"backend": "linux", "reason": "network-denied", "target": "pkg.example:443", "snippet": "curl: (6) Could not resolve host"}
  ],
  "network": [
    {"via": "captured", "host": "ok.example", "port": 443, "verdict": "allow", "rule": "ok.example"},
    {"via": "captured", "host": "evil.example", "port": 443, "verdict": "deny", "reason": "blocked-by-allowlist"},
    {"via": "captured", "host": "127.0.0.1", "port": 8080, "verdict": "deny", "reason": "private-address"},
    {"via": "captured", "host": "paste.example", "port": 443, "verdict": "deny", "reason": "blocked-by-denylist", "rule": "paste.example"}
  ]
}
{"kind": "success", "violations": []}
`

const auditJSONL = `{"time":"t","session":"s","tool":"run_command","args":{"command":"curl --version"},"capability":"network","classified":"ask-approval","outcome":"gate-unavailable","durationMs":1}
{"time":"t","session":"s","tool":"run_command","args":{"argv":["sudo","ls"]},"capability":"privilege","classified":"deny","outcome":"denied-by-policy","durationMs":1}
{"time":"t","session":"s","tool":"run_command","args":{"command":"rm -rf x"},"gate":"declined","outcome":"gate-declined","durationMs":1}
{"time":"t","session":"s","tool":"read_file","args":{"path":"/workspace/secret"},"outcome":"denied-by-policy","path":"/workspace/secret","durationMs":1}
{"time":"t","session":"s","tool":"write_file","args":{"path":"/workspace/ro/a"},"outcome":"outside-write-root","path":"/workspace/ro/a","durationMs":1}
{"time":"t","session":"s","tool":"run_command","args":{"command":"touch ro/b"},"outcome":"sandbox-violation","violations":[{"backend":"linux","reason":"read-only-filesystem","path":"/workspace/ro/b","snippet":"x"}],"durationMs":1}
{"time":"t","session":"s","tool":"run_command","args":{"command":"ls"},"outcome":"ok","durationMs":1}
`

func TestReadRunJSON(t *testing.T) {
	refs, skipped, err := Read(strings.NewReader(runJSON))
	if err != nil {
		t.Fatal(err)
	}
	want := []Refusal{
		{Kind: KindPath, Path: "/src/app/ro/out.txt", Need: policy.Write},
		{Kind: KindPath, Path: "/home/u/.ssh/id_rsa", Need: policy.Deny},
		{Kind: KindHost, Host: "pkg.example", Port: 443},
		{Kind: KindHost, Host: "evil.example", Port: 443},
		{Kind: KindHost, Host: "127.0.0.1", Port: 8080, Private: true},
	}
	if len(refs) != len(want) {
		t.Fatalf("refusals %+v", refs)
	}
	for i, w := range want {
		g := refs[i]
		if g.Kind != w.Kind || g.Path != w.Path || g.Need != w.Need || g.Host != w.Host || g.Port != w.Port || g.Private != w.Private || g.From != "run 1" {
			t.Errorf("refusal %d = %+v, want %+v", i, g, w)
		}
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0].Why, "names no path") || !strings.Contains(skipped[1].Why, "deny always wins") {
		t.Errorf("skipped %+v", skipped)
	}
}

func TestReadAudit(t *testing.T) {
	refs, skipped, err := Read(strings.NewReader(auditJSONL))
	if err != nil {
		t.Fatal(err)
	}
	type w struct {
		kind, path string
		need       policy.Access
		argv       string
	}
	want := []w{
		{KindCommand, "", policy.Deny, "sh -c curl --version"},
		{KindCommand, "", policy.Deny, "sudo ls"},
		{KindPath, "/workspace/secret", policy.Read, ""},
		{KindPath, "/workspace/ro/a", policy.Write, ""},
		{KindPath, "/workspace/ro/b", policy.Write, ""},
	}
	if len(refs) != len(want) {
		t.Fatalf("refusals %+v", refs)
	}
	for i, x := range want {
		g := refs[i]
		if g.Kind != x.kind || g.Path != x.path || g.Need != x.need || strings.Join(g.Argv, " ") != x.argv {
			t.Errorf("refusal %d = %+v, want %+v", i, g, x)
		}
	}
	if len(skipped) != 1 || skipped[0].Why != "a person declined it" || skipped[0].From != "audit record 3" {
		t.Errorf("skipped %+v", skipped)
	}
}

func TestReadRefusesJunk(t *testing.T) {
	for _, in := range []string{"", "   \n", "not json", `{"no":"kind"}`, `{"kind":"denied"} {`, "[1]",
		`{"time":"t","tool":"x","outcome":"ok","durationMs":1}` + "\nnot json\n"} {
		if _, _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("Read(%q) accepted", in)
		}
	}
}

// A command line the trail cut is not a command a rule can be made for.
func TestReadCutCommand(t *testing.T) {
	line := `{"time":"t","session":"s","tool":"run_command","args":{"command":"curl x…[12 more bytes]"},"outcome":"gate-unavailable","durationMs":1}`
	refs, skipped, err := Read(strings.NewReader(line))
	if err != nil || len(refs) != 0 || len(skipped) != 1 {
		t.Fatalf("refs %+v skipped %+v err %v", refs, skipped, err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(runJSON))
	f.Add([]byte(auditJSONL))
	f.Add([]byte(`{"kind":"denied","violations":[{"path":"/a\"\n[x]","reason":"read-only-filesystem"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		refs, _, err := Read(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if len(refs) > maxRefusals {
			t.Fatalf("%d refusals", len(refs))
		}
		// Whatever the records say, the plan is a file that parses, and
		// its diff applies.
		in := input(baseFile)
		in.IncludeSensitive = true
		p, err := Suggest(refs, in)
		if err != nil {
			t.Fatal(err)
		}
		mustParse(t, p.New)
		if got, err := applyDiff(p.Old, Diff("f", p.Old, p.New, false)); err != nil || got != p.New {
			t.Fatalf("diff does not apply: %v", err)
		}
	})
}
