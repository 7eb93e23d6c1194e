package policy

import (
	"strings"
	"testing"
)

func TestMatchProtectedName(t *testing.T) {
	for _, c := range []struct {
		rel  string
		kind NameKind
		name string
		self bool
	}{
		{"", NameNone, "", false},
		{".", NameNone, "", false},
		{"src/main.go", NameNone, "", false},
		{".bashrc", NameRowMatch, ".bashrc", true},
		{"src/app/.ringfence.toml", NameRowMatch, ".ringfence.toml", true},
		{"a/.cursor/mcp.json", NameRowMatch, ".cursor", false},
		{".gemini/settings.json", NameRowMatch, ".gemini", false},
		{"x/.zed/tasks.json", NameRowMatch, ".zed", false},
		{"deep/.aider.conf.yml", NameRowMatch, ".aider.conf.yml", true},
		{"pkg/.devcontainer/devcontainer.json", NameRowMatch, ".devcontainer", false},
		{"pkg/.continue/config.yaml", NameRowMatch, ".continue", false},
		{"web/.envrc", NameRowMatch, ".envrc", true},
		{"mise.toml", NameRowMatch, "mise.toml", true},
		{".vscode", NameRowMatch, ".vscode", true},
		{"src/.gitmodules", NameRowMatch, ".gitmodules", true},
		// git hook names anywhere outside a .git directory
		{".husky/pre-commit", NameRowMatch, ".husky", false},
		{"tools/hooks/pre-commit", NameHook, "pre-commit", true},
		{"x/fsmonitor-watchman", NameHook, "fsmonitor-watchman", true},
		{"scripts/post-checkout", NameHook, "post-checkout", true},
		{"src/HEAD", NameGitHead, "HEAD", true}, // a bare repository's marker
		{"HEAD", NameGitHead, "HEAD", true},
		{".git/HEAD", NameNone, "", false},
		{".git/modules/x/HEAD", NameGitDir, "modules", false},
		{"docs/HEAD.md", NameNone, "", false},
		{"pre-commit.sh", NameNone, "", false},
		{"bin/update", NameNone, "", false}, // server-side hook names are ordinary outside .git/hooks
		{"scripts/post-receive", NameNone, "", false},
		{".git/hooks/update", NameGitHooks, "hooks", false},
		{"node_modules/pkg/.vscode/settings.json", NameNone, "", false}, // unpacked packages
		{"node_modules/husky/.husky/pre-commit", NameNone, "", false},
		{"web/node_modules/x/pre-commit", NameNone, "", false},
		{"node_modules", NameNone, "", false},
		{"pre-commit/x", NameNone, "", false}, // a directory of that name holds no hook
		// a .git directory at any depth
		{".git", NameGitDir, ".git", true},
		{"src/inner/.git", NameGitDir, ".git", true},
		{".git/HEAD", NameNone, "", false},
		{".git/refs/heads/update", NameNone, "", false}, // a branch named like a hook
		{".git/refs/heads/config", NameNone, "", false},
		{".git/hooks", NameGitHooks, "hooks", true},
		{".git/hooks/pre-commit", NameGitHooks, "hooks", false},
		{".git/hooks/pre-commit.sample", NameGitHooks, "hooks", false},
		{"src/inner/.git/config", NameGitConfig, "config", true},
		{"src/inner/.git/config.worktree", NameGitConfig, "config.worktree", true},
		{".git/commondir", NameGitPointer, "commondir", true},
		{".git/config.lock", NameNone, "", false},
		{".git/info/exclude", NameNone, "", false},
		// nested git directories: every level of modules/ and worktrees/
		{".git/modules", NameGitDir, "modules", true},
		{".git/modules/x", NameGitDir, "modules", false},
		{".git/modules/x/HEAD", NameGitDir, "modules", false},
		{".git/modules/x/config", NameGitConfig, "config", true},
		{".git/modules/a/b/config", NameGitConfig, "config", true},
		{".git/modules/x/hooks/post-checkout", NameGitHooks, "hooks", false},
		{".git/worktrees/w/commondir", NameGitPointer, "commondir", true},
		{".git/worktrees/w/config.worktree", NameGitConfig, "config.worktree", true},
		{".git/worktrees/w/gitdir", NameGitDir, "worktrees", false},
		{"sub/.git/modules/m/.git/config", NameGitConfig, "config", true},
		// a table row wins over what lies below it
		{".vscode/.git/config", NameRowMatch, ".vscode", false},
	} {
		m := MatchProtectedName(c.rel, nil)
		if m.Kind != c.kind || m.Name != c.name || (c.kind != NameNone && m.Self != c.self) {
			t.Errorf("%q: got %v %q self=%v, want %v %q self=%v", c.rel, m.Kind, m.Name, m.Self, c.kind, c.name, c.self)
		}
	}
}

func TestExtraProtectedNames(t *testing.T) {
	if m := MatchProtectedName("a/secrets.yaml", []string{"secrets.yaml"}); m.Kind != NameRowMatch || !m.Self {
		t.Errorf("extra name not protected: %+v", m)
	}
	n := NameProtection{GitWritable: true}
	if m := n.Match("x/.git/config"); m.Kind != NameNone {
		t.Errorf("protect_git writable still protects config: %+v", m)
	}
	if m := n.Match("x/.bashrc"); m.Kind != NameRowMatch {
		t.Errorf("protect_git writable dropped a table row: %+v", m)
	}
	for _, bad := range []string{"", ".", "..", "a/b", "a\x00"} {
		if ValidProtectedName(bad) {
			t.Errorf("ValidProtectedName(%q) = true", bad)
		}
	}
	_, err := Resolve(Request{}, Defaults{Mode: WorkspaceWrite, Root: "/w", ExtraProtectedNames: []string{"a/b"}})
	if err == nil || !strings.Contains(err.Error(), "one path component") {
		t.Errorf("bad extra name accepted: %v", err)
	}
	p, err := Resolve(Request{}, Defaults{Mode: WorkspaceWrite, Root: "/w", ExtraProtectedNames: []string{".tasks"}})
	if err != nil || len(p.Names.Extra) != 1 || p.Names.Extra[0] != ".tasks" {
		t.Errorf("extra names not carried: %v %+v", err, p)
	}
}

func TestProtectedNameTableDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range ProtectedNameTable {
		if !ValidProtectedName(r.Name) || r.Tool == "" || r.Why == "" || seen[r.Name] {
			t.Errorf("bad or duplicate row %+v", r)
		}
		seen[r.Name] = true
	}
	for _, must := range []string{".bashrc", ".gitconfig", ".gitmodules", ".mcp.json", ".ringfence", ".ringfence.toml",
		".envrc", ".vscode", ".idea", ".claude", ".codex", ".agents", ".cursor", ".gemini", ".zed", ".aider.conf.yml",
		".continue", ".windsurf", ".clinerules", ".roo", ".kiro", ".amazonq", ".devcontainer", ".devcontainer.json",
		".mise.toml", "mise.toml"} {
		if !seen[must] {
			t.Errorf("table lacks %s", must)
		}
	}
}

// FuzzMatchProtectedName: the matcher never panics; a protected path
// stays protected with anything appended beneath it (one cannot escape a
// protected directory by going deeper); and Name is one of the path's
// components.
func FuzzMatchProtectedName(f *testing.F) {
	for _, s := range []string{".git/modules/a/b/config", "src/.vscode/x", "a/pre-commit", ".git/hooks/x.sample", "", "/"} {
		f.Add(s, "x")
	}
	f.Fuzz(func(t *testing.T, rel, more string) {
		m := MatchProtectedName(rel, nil)
		if m.Kind == NameNone {
			return
		}
		if !strings.Contains("/"+rel+"/", "/"+m.Name+"/") {
			t.Fatalf("%q: name %q is not a component", rel, m.Name)
		}
		if m.Kind == NameHook || strings.Contains(more, "/") || more == "" || more == "." || more == ".." {
			return // a hook name is a file's; beneath it nothing new is named
		}
		if m.Protected() {
			if d := MatchProtectedName(strings.TrimRight(rel, "/")+"/"+more, nil); !d.Protected() {
				t.Fatalf("%q protected (%v) but %q beneath it is not (%v)", rel, m.Kind, more, d.Kind)
			}
		}
	})
}

func TestProtectionOf(t *testing.T) {
	p, err := Resolve(Request{Cwd: "/w/src"}, Defaults{Mode: WorkspaceWrite, Root: "/w", ExtraProtectedNames: []string{".tasks"}})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/w/src/app/.tasks":        "protected name .tasks",
		"app/.tasks":               "protected name .tasks", // from Cwd
		"/w/.git/hooks/pre-commit": "git hooks directory",
		"/w/lib/pre-commit":        "git hook name pre-commit",
		"/w/.envrc":                "protected name .envrc",
		"/w/src/main.go":           "",
		"/w":                       "",
		"/etc/.bashrc":             "", // outside every writable root: not a name refusal
		"":                         "",
	} {
		if got := p.ProtectionOf(path); got != want {
			t.Errorf("ProtectionOf(%q) = %q, want %q", path, got, want)
		}
	}
}
