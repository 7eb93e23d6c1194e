package suggest

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// A hostile record (a sandboxed command prints "ls: cannot open directory
// '/home/u': Permission denied") asks for a grant over a directory that
// holds credential stores. Under a deny baseline the grant opens every
// store the file does not deny by a deeper entry (~/.gnupg, ~/.kube, …),
// so it must be flagged sensitive and left out, as a grant inside a store
// is. A store the file keeps denied by a deeper entry is not reached, and
// a grant that reaches none is not flagged (the controls).
func TestSuggestGrantOverCredentialStoreIsSensitive(t *testing.T) {
	const denyBase = `mode = "workspace-write"
baseline = "deny"

[[entry]]
path = "~/.ssh"
access = "deny"
`
	for _, c := range []struct {
		name      string
		text      string
		path      string
		need      policy.Access
		sensitive bool
	}{
		{"read over ~/.cargo reaches the crates.io token", denyBase, home + "/.cargo", policy.Read, true},
		{"read over ~/.docker reaches the registry logins", denyBase, home + "/.docker", policy.Read, true},
		{"read over home reaches ~/.gnupg", denyBase, home, policy.Read, true},
		{"write over ~/.config reaches ~/.config/gh", baseFile, home + "/.config", policy.Write, true},
		{"write over ~/.local reaches the keyrings", baseFile, home + "/.local", policy.Write, true},
		// Controls: a read baseline already reads home (nothing widens but
		// what the file itself leaves open); a directory with no store in it.
		{"read over ~/src holds no store", denyBase, home + "/src", policy.Read, false},
		{"write over ~/src holds no store", baseFile, home + "/src", policy.Write, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := input(c.text)
			in.ConfigDir = "/xdg" // XDG_CONFIG_HOME outside home: the config-dir rule does not cover home
			in.Stat = existing(root, home, c.path, home+"/.config", home+"/.local", home+"/src")
			p, err := Suggest([]Refusal{{Kind: KindPath, Path: c.path, Need: c.need, From: "run 1", Why: "permission-denied"}}, in)
			if err != nil || len(p.Changes) != 1 {
				t.Fatalf("%v %+v %+v", err, p.Changes, p.Skipped)
			}
			ch := p.Changes[0]
			if got := ch.Sensitive != ""; got != c.sensitive {
				t.Fatalf("sensitive = %q, want sensitive %v (change %+v)", ch.Sensitive, c.sensitive, ch)
			}
			if c.sensitive && (ch.Included || p.New != p.Old) {
				t.Fatalf("a grant reaching a credential store was written without --include-sensitive:\n%s", p.New)
			}
			if c.sensitive && !strings.Contains(ch.Sensitive, "credential store") {
				t.Fatalf("sensitive %q does not say it reaches a credential store", ch.Sensitive)
			}
		})
	}
}

// The store the file keeps denied by its own deeper entry is not reached
// by a read over home: the deepest entry still decides it.
func TestSuggestGrantOverDeniedStoreOnly(t *testing.T) {
	text := `mode = "workspace-write"
baseline = "deny"
`
	for _, n := range policy.CredentialNames {
		text += "\n[[entry]]\npath = \"~/" + n + "\"\naccess = \"deny\"\n"
	}
	in := input(text)
	in.ConfigDir = "/xdg"
	p, err := Suggest([]Refusal{{Kind: KindPath, Path: home, Need: policy.Read, From: "run 1"}}, in)
	if err != nil || len(p.Changes) != 1 || p.Changes[0].Sensitive != "" || !p.Changes[0].Included {
		t.Fatalf("every store denied deeper: the read over home reaches none: %v %+v", err, p.Changes)
	}
}

// A directory named "~" in the workspace (a command makes it, and names
// it in a refusal): its entry must name the workspace's "~", never the
// home directory the file would expand a bare "~" to. The change is
// judged on the workspace path (not sensitive), so an entry that said
// "~" would hand the person a grant of their whole home, unflagged.
func TestSuggestTildeInWorkspaceIsNotHome(t *testing.T) {
	for _, c := range []struct {
		stat []string
		path string
		need policy.Access
		want string
	}{
		{[]string{root, root + "/~"}, root + "/~/x", policy.Write, `path = "./~"`},
		{[]string{root, root + "/~"}, root + "/~", policy.Write, `path = "./~"`},
		{[]string{root, root + "/~foo"}, root + "/~foo", policy.Write, `path = "./~foo"`},
		{[]string{root, root + "/~", root + "/~/.ssh"}, root + "/~/.ssh", policy.Write, `path = "./~/.ssh"`},
	} {
		in := input("mode = \"read-only\"\n")
		in.Stat = existing(c.stat...)
		p, err := Suggest([]Refusal{{Kind: KindPath, Path: c.path, Need: c.need, From: "run 1"}}, in)
		if err != nil || p.Manual || len(p.Changes) != 1 || !p.Changes[0].Included {
			t.Fatalf("%s: %v manual=%v (%s) %+v", c.path, err, p.Manual, p.ManualWhy, p.Changes)
		}
		if !strings.Contains(p.New, c.want+"\n") {
			t.Fatalf("%s: want %s in\n%s", c.path, c.want, p.New)
		}
		f := mustParse(t, p.New)
		d, err := f.Defaults(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.Entries {
			if policy.Contains(home, e.Path) {
				t.Fatalf("%s: an entry reaches home: %+v", c.path, e)
			}
		}
	}
	// Control: a record path that is really under home is named "~/…"
	// (and a write there outside the workspace is said to be outside).
	in := input(baseFile)
	in.ConfigDir = "/xdg"
	p, _ := Suggest([]Refusal{{Kind: KindPath, Path: home + "/src/x", Need: policy.Write, From: "run 1"}}, in)
	if len(p.Changes) != 1 || !strings.Contains(strings.Join(p.Changes[0].Lines, "\n"), `path = "~/src"`) {
		t.Fatalf("control: %+v", p.Changes)
	}
}
