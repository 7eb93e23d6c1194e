package suggest

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/policy/policyfile"
)

const (
	root = "/src/app"
	home = "/home/u"
)

const baseFile = `mode = "workspace-write"

[network]
mode = "domains"
allow = ["pkg.example"]

[[entry]]
path = "ro"
access = "read"

[[entry]]
path = "~/.ssh"
access = "deny"

[exec.outcomes]
network = "ask-approval"
`

func existing(dirs ...string) func(string) (bool, bool) {
	return func(p string) (bool, bool) {
		for _, d := range dirs {
			if d == p {
				return true, true
			}
		}
		return false, false
	}
}

func input(text string) Input {
	return Input{Text: []byte(text), Exists: text != "", Root: root, Home: home, ConfigDir: home + "/.config", MountPath: "/workspace",
		Stat: existing(root, root+"/ro", home, home+"/.ssh")}
}

func mustParse(t *testing.T, text string) *policyfile.File {
	t.Helper()
	f, err := policyfile.Parse([]byte(text), "toml")
	if err != nil {
		t.Fatalf("new text does not parse: %v\n%s", err, text)
	}
	f.Home = home
	return f
}

func TestSuggestPath(t *testing.T) {
	for _, c := range []struct {
		name      string
		ref       Refusal
		want      []string // lines the new text must hold
		sensitive bool
		skipped   string
	}{
		{"write in a read-only entry changes its access", Refusal{Kind: KindPath, Path: root + "/ro/out.txt", Need: policy.Write, From: "run 1", Why: "read-only-filesystem"},
			nil /* the in-place edit: TestSuggestEditsEntryInPlace */, false, ""},
		{"a model path under the mount path", Refusal{Kind: KindPath, Path: "/workspace/ro/x", Model: true, Need: policy.Write, From: "audit record 1"},
			nil, false, ""},
		{"unknown access outside: one step up from the baseline", Refusal{Kind: KindPath, Path: "/data/set", Need: policy.Deny, From: "run 1"},
			[]string{`path = "/data"`, `access = "write"`}, false, ""},
		{"a read the file grants already", Refusal{Kind: KindPath, Path: "/data/set", Need: policy.Read, From: "run 1"},
			nil, false, "already grants read"},
		{"a relative path is under the run's directory", Refusal{Kind: KindPath, Path: "ro/out.txt", Need: policy.Write, From: "run 1"},
			nil, false, ""},
		{"the policy file itself: protected by name, which no entry lifts", Refusal{Kind: KindPath, Path: root + "/.ringfence.toml", Need: policy.Write, From: "run 1"},
			nil, false, "a protected path"},
		{"a git hook under a writable root", Refusal{Kind: KindPath, Path: root + "/.git/hooks/pre-commit", Need: policy.Write, From: "run 1"},
			nil, false, "git hook"},
		{"a shell start-up file in home is sensitive", Refusal{Kind: KindPath, Path: home + "/.bashrc", Need: policy.Write, From: "run 1"},
			nil, true, ""},
		{"~/.aws denied by the built-in protections", Refusal{Kind: KindPath, Path: home + "/.aws/credentials", Need: policy.Read, From: "run 1"},
			nil, false, "credential store"},
		{"~/.ssh is sensitive", Refusal{Kind: KindPath, Path: home + "/.ssh/id_ed25519", Need: policy.Read, From: "run 1"},
			[]string{`path = "~/.ssh/id_ed25519"`, `access = "read"`}, true, ""},
		{"a git hook is sensitive", Refusal{Kind: KindPath, Path: root + "/ro/.git/hooks/pre-commit", Need: policy.Write, From: "run 1"},
			nil, true, ""},
		{"the config dir is never suggested", Refusal{Kind: KindPath, Path: home + "/.config/ringfence/trusted.json", Need: policy.Write, From: "run 1"},
			nil, false, "NEVER SUGGESTED"},
		{"write over home is sensitive", Refusal{Kind: KindPath, Path: home + "/newfile", Need: policy.Write, From: "run 1"},
			nil, true, ""},
		{"a system directory is sensitive", Refusal{Kind: KindPath, Path: "/etc/hosts", Need: policy.Write, From: "run 1"},
			nil, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, include := range []bool{false, true} {
				in := input(baseFile)
				in.IncludeSensitive = include
				p, err := Suggest([]Refusal{c.ref}, in)
				if err != nil {
					t.Fatal(err)
				}
				if c.skipped != "" {
					if len(p.Changes) != 0 || len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Why, c.skipped) {
						t.Fatalf("want skipped (%s), got %+v", c.skipped, p)
					}
					if p.New != p.Old {
						t.Fatal("a skipped refusal changed the file")
					}
					continue
				}
				if len(p.Changes) != 1 {
					t.Fatalf("changes = %+v, skipped %+v", p.Changes, p.Skipped)
				}
				ch := p.Changes[0]
				if (ch.Sensitive != "") != c.sensitive || ch.Risk == "" {
					t.Fatalf("change %+v: sensitive want %v", ch, c.sensitive)
				}
				wantIn := !c.sensitive || include
				if ch.Included != wantIn || (p.New != p.Old) != wantIn {
					t.Fatalf("included %v (file changed %v), want %v", ch.Included, p.New != p.Old, wantIn)
				}
				if !wantIn {
					continue
				}
				if c.sensitive && !strings.Contains(p.New, "# WARNING: ") {
					t.Errorf("a sensitive change is in the file without its warning:\n%s", p.New)
				}
				if !strings.Contains(p.New, "# risk: ") {
					t.Errorf("no risk line:\n%s", p.New)
				}
				for _, w := range c.want {
					if !strings.Contains(p.New, w) {
						t.Errorf("new text lacks %q:\n%s", w, p.New)
					}
				}
				// The effect, judged on the parsed result.
				s := &state{in: in, file: mustParse(t, p.New)}
				target := c.ref.Path
				if c.ref.Model {
					target = root + strings.TrimPrefix(target, "/workspace")
				}
				if !strings.HasPrefix(target, "/") {
					target = root + "/" + target
				}
				if got := s.accessAt(s.file, target); got < c.ref.Need || got == policy.Deny {
					t.Errorf("after the change %s has %s", target, got)
				}
			}
		})
	}
}

// The read-only entry is changed in place (not shadowed by a second
// entry at the same path), with the rest of the file untouched.
func TestSuggestEditsEntryInPlace(t *testing.T) {
	p, err := Suggest([]Refusal{{Kind: KindPath, Path: root + "/ro/out.txt", Need: policy.Write, From: "run 1", Why: "read-only-filesystem"}}, input(baseFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(p.New, "[[entry]]") != 2 || strings.Count(p.New, `access = "read"`) != 0 || !strings.Contains(p.New, `access = "write"`) {
		t.Fatalf("new text:\n%s", p.New)
	}
	d := Diff(".ringfence.toml", p.Old, p.New, false)
	if strings.Count(d, "\n-") != 1 || !strings.Contains(d, `-access = "read"`) || !strings.Contains(d, `+access = "write"`) {
		t.Fatalf("diff is not the one line:\n%s", d)
	}
	if got, err := applyDiff(p.Old, d); err != nil || got != p.New {
		t.Fatalf("diff does not apply: %v", err)
	}
}

func TestSuggestHost(t *testing.T) {
	for _, c := range []struct {
		name, file string
		ref        Refusal
		rule       string
		sensitive  bool
		skipped    string
	}{
		{"a name the allow list lacks", baseFile, Refusal{Kind: KindHost, Host: "evil.example", Port: 443, From: "run 1", Why: proxyAllowlist}, "evil.example:443", false, ""},
		{"network off: the mode becomes domains", "mode = \"workspace-write\"\n", Refusal{Kind: KindHost, Host: "pkg.example", From: "run 1"}, "pkg.example", false, ""},
		{"a [network] table without allow", "[network]\nmode = \"deny\"\n", Refusal{Kind: KindHost, Host: "pkg.example", Port: 80, From: "run 1"}, "pkg.example:80", false, ""},
		{"a private address", baseFile, Refusal{Kind: KindHost, Host: "127.0.0.1", Port: 8080, Private: true, From: "run 1"}, "127.0.0.1:8080", true, ""},
		{"cloud metadata", baseFile, Refusal{Kind: KindHost, Host: "169.254.169.254", Port: 80, From: "run 1"}, "169.254.169.254:80", true, ""},
		{"IPv6", baseFile, Refusal{Kind: KindHost, Host: "2001:db8::1", Port: 443, From: "run 1"}, "[2001:db8::1]:443", false, ""},
		{"already allowed", baseFile, Refusal{Kind: KindHost, Host: "pkg.example", Port: 443, From: "run 1"}, "", false, "already allows"},
		{"not a host", baseFile, Refusal{Kind: KindHost, Host: "a b", From: "run 1"}, "", false, "not a host"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := input(c.file)
			in.IncludeSensitive = true
			p, err := Suggest([]Refusal{c.ref}, in)
			if err != nil {
				t.Fatal(err)
			}
			if c.skipped != "" {
				if len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Why, c.skipped) || p.New != p.Old {
					t.Fatalf("want skipped: %+v", p)
				}
				return
			}
			if len(p.Changes) != 1 || (p.Changes[0].Sensitive != "") != c.sensitive {
				t.Fatalf("changes %+v", p.Changes)
			}
			f := mustParse(t, p.New)
			if f.Network.Mode != policy.NetDomains {
				t.Fatalf("mode %v:\n%s", f.Network.Mode, p.New)
			}
			allow, err := netproxy.ParseRules(f.Network.Policy().Domains, true)
			if err != nil {
				t.Fatal(err)
			}
			tg, _ := netproxy.ParseHost(c.ref.Host)
			tg.Port = uint16(c.ref.Port)
			if d := (netproxy.Rules{Allow: allow}).Decide(tg); d.Verdict != netproxy.Allow || d.Rule != c.rule {
				t.Fatalf("after the change %s: %+v\n%s", c.ref.Host, d, p.New)
			}
			// Control: the same decision on the old file refuses.
			if c.file == baseFile {
				old, _ := netproxy.ParseRules(mustParse(t, c.file).Network.Policy().Domains, true)
				if (netproxy.Rules{Allow: old}).Decide(tg).Verdict == netproxy.Allow {
					t.Fatal("control: the old file allowed it already")
				}
			}
			// Without the flag a sensitive host stays out of the file.
			in.IncludeSensitive = false
			p2, err := Suggest([]Refusal{c.ref}, in)
			if err != nil || (p2.New != p2.Old) == c.sensitive {
				t.Fatalf("without --include-sensitive: changed=%v err=%v", p2.New != p2.Old, err)
			}
		})
	}
}

func TestSuggestCommand(t *testing.T) {
	for _, c := range []struct {
		name      string
		argv      []string
		rules     int
		sensitive bool
		skipped   string
	}{
		{"a network command asks", []string{"sh", "-c", "curl --version"}, 1, false, ""},
		{"two refused parts of one line", []string{"sh", "-c", "curl --version && wget --version | cat"}, 2, false, ""},
		{"a plain argv", []string{"npm", "install"}, 1, false, ""},
		{"privilege is sensitive", []string{"sh", "-c", "sudo ls"}, 1, true, ""},
		{"a word that is not literal", []string{"sh", "-c", "$CMD --version"}, 0, false, "no prefix rule"},
		{"already allowed", []string{"sh", "-c", "ls -l"}, 0, false, "already allows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := input(baseFile)
			in.IncludeSensitive = true
			p, err := Suggest([]Refusal{{Kind: KindCommand, Argv: c.argv, From: "audit record 1"}}, in)
			if err != nil {
				t.Fatal(err)
			}
			if c.skipped != "" {
				if len(p.Skipped) != 1 || !strings.Contains(p.Skipped[0].Why, c.skipped) || p.New != p.Old {
					t.Fatalf("want skipped: %+v", p)
				}
				return
			}
			if len(p.Changes) != c.rules {
				t.Fatalf("changes %+v", p.Changes)
			}
			if (p.Changes[0].Sensitive != "") != c.sensitive {
				t.Fatalf("sensitive: %+v", p.Changes[0])
			}
			f := mustParse(t, p.New)
			cl, err := f.Exec.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if got := cl.Classify(c.argv); got.Outcome != execpolicy.Allow && got.Outcome != execpolicy.AllowScoped {
				t.Fatalf("after the change: %+v\n%s", got, p.New)
			}
			// Control: the old file did not allow it.
			ocl, _ := mustParse(t, baseFile).Exec.Compile()
			if got := ocl.Classify(c.argv); got.Outcome == execpolicy.Allow || got.Outcome == execpolicy.AllowScoped {
				t.Fatal("control: allowed before")
			}
		})
	}
}

// A new file starts from the init template: trusted, it replaces the
// defaults, so it must carry the template's protections, not only the
// change.
func TestSuggestNewFileStartsFromTemplate(t *testing.T) {
	in := input("")
	p, err := Suggest([]Refusal{{Kind: KindHost, Host: "pkg.example", Port: 443, From: "run 1"}}, in)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Created || p.Old != "" || !strings.Contains(p.New, `path = "~/.ssh"`) || !strings.Contains(p.New, `"pkg.example:443"`) {
		t.Fatalf("new file:\n%s", p.New)
	}
	d := Diff(".ringfence.toml", p.Old, p.New, true)
	if !strings.HasPrefix(d, "--- /dev/null\n") {
		t.Fatalf("diff:\n%s", d)
	}
}

// Layouts the editor does not read are left to the person: the change is
// listed, the file untouched.
func TestSuggestManualLayouts(t *testing.T) {
	for _, text := range []string{
		"network = { mode = \"domains\", allow = [\"a.example\"] }\n",
		"entry = [{ path = \"ro\", access = \"read\" }]\n",
		"[env]\nset = { X = \"\"\"\nmulti\"\"\" }\n",
	} {
		if _, err := policyfile.Parse([]byte(text), "toml"); err != nil {
			continue // not a valid file: the parse error is tested elsewhere
		}
		p, err := Suggest([]Refusal{
			{Kind: KindHost, Host: "pkg.example", From: "run 1"},
			{Kind: KindPath, Path: root + "/ro/x", Need: policy.Write, From: "run 1"},
		}, input(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if !p.Manual || p.New != p.Old || len(p.Changes) == 0 {
			t.Fatalf("%q: manual %v, changed %v, changes %d", text, p.Manual, p.New != p.Old, len(p.Changes))
		}
	}
}

// A string from the record cannot break out of its TOML string or comment.
func TestSuggestQuotesHostileText(t *testing.T) {
	hostile := root + "/ro/a\"\n[network]\nmode = \"allow-all\"\n#\\/file"
	p, err := Suggest([]Refusal{
		{Kind: KindPath, Path: hostile, Need: policy.Write, From: "run 1\n[network]", Why: "x\nmode = \"allow-all\""},
		{Kind: KindCommand, Argv: []string{"curl", "a\"\n[network]\nmode=\"allow-all\""}, From: "r\n"},
	}, input(baseFile))
	if err != nil {
		t.Fatal(err)
	}
	f := mustParse(t, p.New)
	if f.Network.Mode != policy.NetDomains || len(f.Network.Allow) != 1 {
		t.Fatalf("hostile text changed the network:\n%s", p.New)
	}
	if p.Included() != 2 || len(f.Entries) != 3 || f.Entries[2].Path != strings.TrimPrefix(hostile, root+"/ro/")[:0]+"ro/a\"\n[network]\nmode = \"allow-all\"\n#\\" {
		t.Fatalf("changes: %+v skipped %+v entries %+v\n%s", p.Changes, p.Skipped, f.Entries, p.New)
	}
}

// A host path that happens to lie under the mount path is not a model
// path: only an audit trail's paths are mapped.
func TestSuggestMapsOnlyModelPaths(t *testing.T) {
	in := input(baseFile)
	in.IncludeSensitive = true
	p, err := Suggest([]Refusal{{Kind: KindPath, Path: "/workspace/data/x", Need: policy.Write, From: "run 1"}}, in)
	if err != nil || len(p.Changes) != 1 || !strings.Contains(p.New, `path = "/workspace/data"`) {
		t.Fatalf("%v %+v\n%s", err, p.Changes, p.New)
	}
}

// A workspace under a system directory (/var/tmp/…, /opt/…, /srv) is
// the person's own: a write inside it is not a system directory's.
func TestSuggestWorkspaceUnderSystemDir(t *testing.T) {
	for _, r := range []string{"/var/tmp/ws", "/opt/proj", "/var/lib/app"} {
		in := input(baseFile)
		in.Root = r
		p, err := Suggest([]Refusal{{Kind: KindPath, Path: r + "/ro/x", Need: policy.Write, From: "run 1"}}, in)
		if err != nil || len(p.Changes) != 1 || p.Changes[0].Sensitive != "" || !p.Changes[0].Included {
			t.Fatalf("%s: %v %+v", r, err, p.Changes)
		}
	}
	// Control: outside the workspace the same directory is sensitive.
	p, _ := Suggest([]Refusal{{Kind: KindPath, Path: "/var/lib/app/ro/x", Need: policy.Write, From: "run 1"}}, input(baseFile))
	if len(p.Changes) != 1 || p.Changes[0].Sensitive == "" {
		t.Fatalf("control: %+v", p.Changes)
	}
}

// Whatever the policy file's text, Suggest either edits it into a file
// that parses and does what the changes say (verify), or leaves it as it
// is (Manual, or an error for a file that does not parse).
func FuzzSuggestFile(f *testing.F) {
	f.Add(baseFile)
	f.Add(policyfile.InitTemplate())
	f.Add("[network]\nallow = [\n  \"a.example\", # c\n]\nmode = \"domains\"\n")
	f.Add("[[entry]]\npath = 'ro'\naccess = 'read'\n[[exec.rule]]\nprefix = [\"a\"]\ndecision = \"deny\"\nmatch = [\n[\"a\"],\n]\n")
	refs := []Refusal{
		{Kind: KindPath, Path: root + "/ro/out.txt", Need: policy.Write, From: "run 1"},
		{Kind: KindHost, Host: "pkg2.example", Port: 443, From: "run 1"},
		{Kind: KindCommand, Argv: []string{"sh", "-c", "curl --version"}, From: "audit record 1"},
	}
	f.Fuzz(func(t *testing.T, text string) {
		if _, err := policyfile.Parse([]byte(text), "toml"); err != nil {
			return
		}
		in := input(text)
		in.Exists = true
		p, err := Suggest(refs, in)
		if err != nil {
			return // a file whose [exec] or entries do not hold up
		}
		if p.Manual && p.New != p.Old {
			t.Fatal("a manual plan changed the text")
		}
		if p.New != p.Old {
			mustParse(t, p.New)
			if got, err := applyDiff(p.Old, Diff("f", p.Old, p.New, false)); err != nil || got != p.New {
				t.Fatalf("diff does not apply: %v", err)
			}
		}
	})
}

// A path no entry may hold (a NUL byte) is not turned into a file that
// would no longer load.
func TestSuggestNULPath(t *testing.T) {
	p, err := Suggest([]Refusal{{Kind: KindPath, Path: root + "/ro/a\x00b", Need: policy.Write, From: "run 1"}}, input(baseFile))
	if err != nil || len(p.Changes) != 0 || len(p.Skipped) != 1 || p.New != p.Old {
		t.Fatalf("%v %+v", err, p)
	}
}
