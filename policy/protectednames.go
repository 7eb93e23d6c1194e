package policy

import "strings"

// NameRow is one row of the protected-name table: a file or directory
// name protected at any depth under a writable root (itself and
// everything beneath it), the tool that reads it and why a write there
// runs code later, outside the sandbox.
type NameRow struct {
	Name string
	Tool string
	Why  string
}

// ProtectedNameTable is the one documented list of names protected at any
// depth under a writable root. A write made now to one of these runs code
// or grants authority the next time a person (or their tool) opens the
// directory on the host. Names are compared exactly (Linux file systems
// are case-sensitive; a tool on a case-insensitive one sees the same
// bytes).
var ProtectedNameTable = []NameRow{
	{".bashrc", "bash", "sourced by every interactive shell"},
	{".bash_profile", "bash", "sourced by login shells"},
	{".bash_login", "bash", "sourced by login shells without .bash_profile"},
	{".bash_logout", "bash", "sourced when a login shell exits"},
	{".profile", "sh, dash, bash", "sourced by login shells"},
	{".zshrc", "zsh", "sourced by interactive shells"},
	{".zshenv", "zsh", "sourced by every zsh, scripts included"},
	{".zprofile", "zsh", "sourced by login shells"},
	{".zlogin", "zsh", "sourced by login shells"},
	{".gitconfig", "git", "a config file can name hooks, pagers, fsmonitor, credential helpers"},
	{".gitmodules", "git", "submodule URLs and update commands (update = !cmd runs a command)"},
	{"hgrc", "Mercurial", "a repository's .hg/hgrc: its [hooks] run on every hg command, hg status included"},
	{".mcp.json", "Claude Code, MCP clients", "project MCP servers: commands started by the agent"},
	{".ringfence", "ringfence", "the workspace's own policy directory"},
	{".ringfence.toml", "ringfence", "the workspace's own policy file"},
	{".envrc", "direnv", "executed by the shell hook on cd"},
	{".vscode", "VS Code", "tasks.json runs tasks, settings.json names interpreters and terminals, mcp.json starts servers"},
	{".idea", "JetBrains IDEs", "run configurations and external tools execute commands"},
	{".claude", "Claude Code", "settings.json hooks run shell commands; commands, agents"},
	{".codex", "OpenAI Codex CLI", "config.toml names MCP servers and sandbox settings"},
	{".agents", "agent tools (AGENTS.md tooling)", "agent configuration and skills"},
	{".cursor", "Cursor", "mcp.json starts MCP servers; rules steer the agent"},
	{".cursorrules", "Cursor", "instructions the agent follows"},
	{".gemini", "Gemini CLI", "settings.json names MCP servers and tool commands"},
	{".zed", "Zed", "tasks.json and settings.json run commands and language servers"},
	{".aider.conf.yml", "Aider", "lint-cmd and test-cmd are run by aider"},
	{".continue", "Continue", "config names MCP servers and commands"},
	{".continuerc.json", "Continue", "workspace overrides of its config"},
	{".windsurf", "Windsurf", "workflows, rules and MCP settings"},
	{".windsurfrules", "Windsurf", "instructions the agent follows"},
	{".clinerules", "Cline", "rules and workflows the agent follows"},
	{".roo", "Roo Code", "mcp.json starts MCP servers; modes and rules"},
	{".roomodes", "Roo Code", "custom modes with tool permissions"},
	{".kiro", "Kiro", "hooks run agent actions on file events; steering; MCP settings"},
	{".amazonq", "Amazon Q Developer", "MCP servers and rules"},
	{".devcontainer", "Dev Containers (VS Code, Codespaces)", "postCreateCommand and friends run on the host's container engine"},
	{".devcontainer.json", "Dev Containers", "as .devcontainer/"},
	{".mise.toml", "mise", "[hooks] and [tasks] run commands on cd and on demand"},
	{"mise.toml", "mise", "as .mise.toml"},
	{".mise", "mise", "config directory, as .mise.toml"},
	{".npmrc", "npm", "script-shell, node-options and registry tokens for every later npm run"},
	{".yarnrc.yml", "yarn", "yarnPath names the yarn binary that every later yarn runs"},
	{".pre-commit-config.yaml", "pre-commit", "hooks run on the next commit"},
	{".husky", "husky", "git hooks (core.hooksPath)"},
	{".githooks", "git (core.hooksPath convention)", "git hooks"},
	{"lefthook.yml", "lefthook", "git hook commands"},
	{".lefthook.yml", "lefthook", "git hook commands"},
}

// GitHookNames are the hook names of githooks(5) (git 2.47). A file with
// one of these names is protected anywhere under a writable root, not only
// in .git/hooks: core.hooksPath can name any directory (husky's .husky,
// .githooks), and whatever the config says, git runs only these names.
var GitHookNames = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch",
	"pre-commit", "pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit",
	"pre-rebase", "post-checkout", "post-merge", "pre-push",
	"pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite",
	"sendemail-validate", "fsmonitor-watchman", "post-index-change",
	"p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
}

// NameKind says why a path is protected by name.
type NameKind int

const (
	// NameNone: not protected by name.
	NameNone NameKind = iota
	// NameRowMatch: a component is a table row (or an extra name); the
	// path is that name or beneath it.
	NameRowMatch
	// NameHook: the final component is a git hook name.
	NameHook
	// NameGitHooks: a git directory's hooks directory or an entry in it.
	NameGitHooks
	// NameGitConfig: a git directory's config or config.worktree, read as
	// configuration (hooksPath, fsmonitor, pager, aliases, …).
	NameGitConfig
	// NameGitPointer: a git directory's commondir, which points git at the
	// directory whose hooks and config apply.
	NameGitPointer
	// NameGitDir: a ".git" at any depth (Self: as a file it is a
	// "gitdir:" pointer), or a path in the modules/ or worktrees/ tree of
	// one, where nested git directories live. Not protected itself — git
	// makes and fills these — but nothing may land there that brings
	// unchecked content along: a symlink or a renamed directory anywhere
	// in it, a file at the .git itself.
	NameGitDir
	// NameGitHead: a file named HEAD outside a .git tree. With objects/
	// and refs/ beside it, git takes its directory for a bare repository
	// (discovery checks each directory it walks up through) and reads the
	// config there — core.pager, aliases — which no name rule holds.
	NameGitHead
)

func (k NameKind) String() string {
	switch k {
	case NameRowMatch:
		return "protected name"
	case NameHook:
		return "git hook name"
	case NameGitHooks:
		return "git hooks directory"
	case NameGitConfig:
		return "git config"
	case NameGitPointer:
		return "git commondir"
	case NameGitDir:
		return "git directory"
	case NameGitHead:
		return "git HEAD (bare repository)"
	}
	return "not protected"
}

// NameMatch is MatchProtectedName's answer.
type NameMatch struct {
	Kind NameKind
	// Name is the component that matched (the table row's name, the hook
	// name, "hooks", "config", …).
	Name string
	// Self reports that the matched component is the final one: the path
	// names the protected file or directory itself, not something beneath.
	Self bool
	// Rest is what follows the matched component ("" when Self).
	Rest string
}

// Protected reports whether the path itself may not be written or
// replaced (NameGitDir positions may, with care).
func (m NameMatch) Protected() bool { return m.Kind != NameNone && m.Kind != NameGitDir }

var (
	nameRows = func() map[string]bool {
		m := map[string]bool{}
		for _, r := range ProtectedNameTable {
			m[r.Name] = true
		}
		return m
	}()
	// hookNames are the hook names protected anywhere: every one but the
	// server-side hooks, which git runs only in a repository receiving a
	// push (pre-receive, update, proc-receive, post-receive, post-update,
	// push-to-checkout). "update" in particular is an ordinary file name
	// (Rails' bin/update); in a .git/hooks directory every name is held.
	hookNames = func() map[string]bool {
		server := map[string]bool{"pre-receive": true, "update": true, "proc-receive": true,
			"post-receive": true, "post-update": true, "push-to-checkout": true}
		m := map[string]bool{}
		for _, h := range GitHookNames {
			if !server[h] {
				m[h] = true
			}
		}
		return m
	}()
)

// MatchProtectedName decides whether rel, a clean path relative to a
// writable root ("" or "." is the root itself), is protected by name, and
// by which rule. extra are more names protected like table rows
// (Defaults.ExtraProtectedNames). Pure: no file system is consulted, so
// the caller passes a path whose symlinks are already resolved.
//
// Git's rules apply in any directory named ".git" at any depth: its
// hooks, config, config.worktree and commondir, and the same set at every
// level of its modules/ and worktrees/ trees (a submodule's name may hold
// slashes, so no level is assumed to be the nested git directory).
func MatchProtectedName(rel string, extra []string) NameMatch {
	rel = strings.Trim(rel, "/")
	if rel == "" || rel == "." {
		return NameMatch{}
	}
	comps := strings.Split(rel, "/")
	var git NameMatch // the deepest git-directory position met so far
	inGit := false
	for i, c := range comps {
		if c == "node_modules" && i < len(comps)-1 {
			// Packages a package manager unpacks: npm packages ship .vscode/,
			// .husky/ and hook-named scripts, and no editor, agent or git
			// opens node_modules/x as a project on its own. What is there
			// runs when the user runs their tools anyway (it is code).
			return NameMatch{}
		}
		last := i == len(comps)-1
		if nameRows[c] || containsName(extra, c) {
			return NameMatch{Kind: NameRowMatch, Name: c, Self: last, Rest: strings.Join(comps[i+1:], "/")}
		}
		// Inside a .git directory git runs hooks only from hooks/ (matched
		// below), and refs named "update" or "pre-commit" are ordinary.
		if last && !inGit && hookNames[c] {
			return NameMatch{Kind: NameHook, Name: c, Self: true}
		}
		if last && !inGit && c == "HEAD" {
			return NameMatch{Kind: NameGitHead, Name: c, Self: true}
		}
		if c != ".git" {
			continue
		}
		inGit = true
		switch m := matchGitDir(comps[i+1:]); m.Kind {
		case NameNone:
		case NameGitDir:
			git = m
		default:
			return m
		}
	}
	return git
}

// matchGitDir applies git's rules to the components below a ".git": its
// own hooks, config, config.worktree and commondir, and the same names at
// every level of its modules/ and worktrees/ trees.
func matchGitDir(below []string) NameMatch {
	if len(below) == 0 {
		return NameMatch{Kind: NameGitDir, Name: ".git", Self: true}
	}
	nested := below[0] == "modules" || below[0] == "worktrees"
	for i, c := range below {
		if i > 0 && !nested {
			break
		}
		last := i == len(below)-1
		rest := strings.Join(below[i+1:], "/")
		switch c {
		case "hooks":
			return NameMatch{Kind: NameGitHooks, Name: c, Self: last, Rest: rest}
		case "config", "config.worktree":
			return NameMatch{Kind: NameGitConfig, Name: c, Self: last, Rest: rest}
		case "commondir":
			return NameMatch{Kind: NameGitPointer, Name: c, Self: last, Rest: rest}
		}
	}
	if nested {
		return NameMatch{Kind: NameGitDir, Name: below[0], Self: len(below) == 1, Rest: strings.Join(below[1:], "/")}
	}
	return NameMatch{}
}

// UnderNodeModules reports whether what lies beneath rel (a clean path
// relative to a writable root) is exempt from names because of a
// node_modules component: rel has one anywhere, the last included.
// Symlink content counts too ("../node_modules/x"), '/'-separated.
func UnderNodeModules(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if c == "node_modules" {
			return true
		}
	}
	return false
}

func containsName(names []string, c string) bool {
	for _, n := range names {
		if n == c {
			return true
		}
	}
	return false
}

// ValidProtectedName reports whether name can be an extra protected name:
// one non-empty component, not "." or "..", no NUL.
func ValidProtectedName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

// ProtectedByName reports whether path, inside one of p's writable roots,
// is protected by name there (itself a protected name, or beneath one):
// what a backend's name guard holds without any mount or Landlock rule.
func (p *Policy) ProtectedByName(path string) bool {
	return p.ProtectedByNameFunc()(path)
}

// ProtectionOf says why path (a host path) is held read-only inside a
// writable root by name, in words for the model ("protected name .envrc",
// "git hook name pre-commit"), or "" when it is not. A relative path is
// taken from p.Cwd, where the command started (what a tool's message
// means by it).
func (p *Policy) ProtectionOf(path string) string {
	if path == "" {
		return ""
	}
	if !strings.HasPrefix(path, "/") {
		path = Clean(p.Cwd + "/" + path)
	}
	path = Clean(path)
	for _, r := range p.WritableRoots().Roots {
		if r == path || !Contains(r, path) {
			continue
		}
		if m := p.Names.Match(strings.TrimPrefix(path, Clean(r)+"/")); m.Protected() {
			if m.Kind == NameRowMatch || m.Kind == NameHook {
				return m.Kind.String() + " " + m.Name
			}
			return m.Kind.String()
		}
	}
	return ""
}
