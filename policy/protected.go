package policy

import (
	"bytes"
	"slices"
	"strings"
)

// protectedNames are layered read-only under every writable root, whether
// or not they exist yet: each is a place where a write made now runs code
// or changes authority later, outside the sandbox — a shell start-up file,
// a git hook or config, an editor's or agent's project configuration (MCP
// servers, tasks, hooks), ringfence's own policy.
var protectedNames = []string{
	".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
	".gitconfig", ".gitmodules", ".mcp.json",
	".vscode", ".idea", ".claude", ".codex", ".agents",
	".ringfence", ".ringfence.toml",
}

// gitSubpaths are the parts of a git directory protected under each
// GitProtection: hooks run code, config can name a hooks path, a fsmonitor
// or a pager to run; commondir would point git at another directory whose
// hooks and config then apply, and config.worktree is read as config.
func gitSubpaths(g GitProtection) []string {
	switch g {
	case GitReadOnly:
		return []string{""}
	case GitWritable:
		return nil
	}
	return []string{"hooks", "config", "commondir", "config.worktree"}
}

// ProtectedSubpaths lists the subpaths layered read-only under every
// writable root for g, relative to the root (a worktree's gitdir comes on
// top, found on disk).
func ProtectedSubpaths(g GitProtection) []string {
	var out []string
	for _, s := range gitSubpaths(g) {
		out = append(out, strings.TrimSuffix(".git/"+s, "/"))
	}
	return append(out, protectedNames...)
}

// protectAll layers the protected subpaths (and extra) under every
// writable root. Each protection only ever lowers access: a protected
// path inside a denied subtree stays denied.
func protectAll(b *builder, d Defaults, extra, unrestricted []string) {
	// The roots are the layers that make a subtree writable; a write grant
	// inside one that is already writable (a temp dir in the root, an
	// approved file) adds no root: its names are as protected as any
	// other subdirectory's. The roots before restrictions count too (see
	// buildLayers).
	roots := (&Policy{Baseline: b.baseline, Layers: b.finish()}).WritableRoots().Roots
	for _, r := range unrestricted {
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	subs := append(ProtectedSubpaths(d.ProtectGit), extra...)
	for _, root := range roots {
		for _, s := range subs {
			b.lower(join(root, s), Read, FromProtected)
		}
		if d.ProtectGit != GitWritable && d.ReadFile != nil {
			protectGitdir(b, root, d)
		}
	}
}

// protectGitdir handles a root whose .git is a file ("gitdir: …"), as in a
// linked worktree or a submodule: the file itself is protected (or a write
// could point it at a directory full of hooks), and the gitdir it names —
// and that gitdir's commondir, where a worktree's hooks and config live —
// get the same protection as a .git directory.
func protectGitdir(b *builder, root string, d Defaults) {
	target, ok := pointer(d.ReadFile, join(root, ".git"), "gitdir:", root)
	if !ok {
		return
	}
	b.lower(join(root, ".git"), Read, FromProtected)
	dirs := []string{target}
	if common, ok := pointer(d.ReadFile, join(target, "commondir"), "", target); ok {
		dirs = append(dirs, common)
	}
	for _, dir := range dirs {
		for _, s := range gitSubpaths(d.ProtectGit) {
			b.lower(join(dir, s), Read, FromProtected)
		}
	}
}

// maxPointer bounds how much of a .git or commondir file is read: both hold
// one line, and the file may have been written by the sandboxed command.
const maxPointer = 4096

// pointer reads the first line of file, strips prefix, and resolves a
// relative result against base. A file written by a sandboxed command can
// only make this protect more: every use of the result lowers access.
func pointer(read func(string) ([]byte, error), file, prefix, base string) (string, bool) {
	data, err := read(file)
	if err != nil {
		return "", false
	}
	data = data[:min(len(data), maxPointer)]
	line, _, _ := bytes.Cut(data, []byte("\n"))
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(line)), prefix)
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" || strings.IndexByte(rest, 0) >= 0 {
		return "", false
	}
	if !strings.HasPrefix(rest, "/") {
		rest = base + "/" + rest
	}
	return Clean(rest), true
}
