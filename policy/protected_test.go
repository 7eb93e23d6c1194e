package policy

import (
	"testing"
)

var allProtected = []string{
	".git/hooks", ".git/config", ".git/commondir", ".git/config.worktree", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile",
	".gitconfig", ".gitmodules", ".mcp.json", ".vscode", ".idea", ".claude", ".codex", ".agents",
	".ringfence", ".ringfence.toml",
}

func TestProtectedUnderEveryWritableRoot(t *testing.T) {
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/srv/data", Access: Write}}
	d.ExtraProtected = []string{".env", "config/secrets"}
	a := Approve(Grant{Entries: []Entry{{Path: "/approved", Access: Write}}})
	p := mustResolve(t, Request{Approval: a}, d)
	for _, root := range []string{"/repo", "/tmp/rf", "/srv/data", "/approved"} {
		if p.AccessAt(root+"/file") != Write {
			t.Errorf("%s is not writable", root)
		}
		for _, sub := range append(allProtected, ".env", "config/secrets") {
			for _, path := range []string{root + "/" + sub, root + "/" + sub + "/deeper/x"} {
				if got := p.AccessAt(path); got != Read {
					t.Errorf("AccessAt(%s) = %s, want read", path, got)
				}
			}
		}
		// git keeps working: objects, index, refs are writable by default.
		for _, sub := range []string{".git", ".git/objects/ab/cdef", ".git/index", ".git/refs/heads/main", ".git/HEAD", ".gitignore", ".config", "config"} {
			if got := p.AccessAt(root + "/" + sub); got != Write {
				t.Errorf("AccessAt(%s/%s) = %s, want write", root, sub, got)
			}
		}
	}
}

func TestProtectionNeverWidens(t *testing.T) {
	// A protected name inside a denied subtree stays denied; outside any
	// writable root nothing is layered at all.
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/repo/.git", Access: Deny}}
	p := mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{"/repo/.git/hooks": Deny, "/repo/.git/config": Deny, "/home/.bashrc": Read})
	for _, l := range p.Layers {
		if l.Origin == FromProtected && l.Path == "/repo/.git/hooks" {
			t.Errorf("useless protected layer under a deny: %+v", l)
		}
	}
}

func TestGitProtectionOptions(t *testing.T) {
	for _, tc := range []struct {
		g    GitProtection
		want map[string]Access
	}{
		{GitDefault, map[string]Access{".git/hooks/pre-commit": Read, ".git/config": Read, ".git/objects": Write, ".git/index": Write, ".git/refs/heads": Write, ".git/modules/sub/hooks": Write}},
		{GitReadOnly, map[string]Access{".git": Read, ".git/objects": Read, ".git/index": Read, ".git/modules/sub/hooks": Read, ".bashrc": Read}},
		{GitWritable, map[string]Access{".git/hooks/pre-commit": Write, ".git/config": Write, ".bashrc": Read, ".vscode": Read}},
	} {
		t.Run(string(tc.g), func(t *testing.T) {
			d := wsDefaults()
			d.ProtectGit = tc.g
			p := mustResolve(t, Request{}, d)
			for sub, a := range tc.want {
				if got := p.AccessAt("/repo/" + sub); got != a {
					t.Errorf("%s: %s, want %s", sub, got, a)
				}
			}
		})
	}
}

func TestWorktreeGitdir(t *testing.T) {
	fsys := fakeFS{
		"/wt/.git":                          "gitdir: /main/.git/worktrees/wt\n",
		"/main/.git/worktrees/wt/commondir": "../..\n",
		"/rel/.git":                         "gitdir: ../main/.git/worktrees/rel",
		"/sub/.git":                         "gitdir: ../main/.git/modules/sub\r\n",
		"/repo/.git":                        "<dir>",
		"/junk/.git":                        "this is not a pointer",
		"/empty/.git":                       "gitdir:   ",
	}
	d := Defaults{Mode: WorkspaceWrite, Root: "/wt", Baseline: Read, ReadFile: fsys.ReadFile,
		Entries: []Entry{{Path: "/main", Access: Write}, {Path: "/rel", Access: Write}, {Path: "/sub", Access: Write},
			{Path: "/repo", Access: Write}, {Path: "/junk", Access: Write}, {Path: "/empty", Access: Write}}}
	p := mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{
		"/wt/.git":                                Read, // the pointer itself cannot be repointed
		"/wt/src":                                 Write,
		"/main/.git/worktrees/wt/hooks":           Read,
		"/main/.git/worktrees/wt/config":          Read,
		"/main/.git/worktrees/wt/index":           Write, // commits in the worktree keep working
		"/main/.git/worktrees/wt/HEAD":            Write,
		"/main/.git/hooks/post-checkout":          Read, // the commondir's hooks
		"/main/.git/worktrees/rel/hooks/x":        Read, // relative gitdir, resolved against its root
		"/rel/.git":                               Read,
		"/main/.git/modules/sub/hooks/pre-commit": Read,
		"/main/.git/modules/sub/config":           Read,
		"/main/.git/modules/sub/objects":          Write,
		"/repo/.git":                              Write, // a directory: only hooks and config
		"/junk/.git":                              Write,
		"/empty/.git":                             Write,
	})

	d.ProtectGit = GitReadOnly
	p = mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{"/main/.git/worktrees/wt/index": Read, "/main/.git/objects": Read, "/wt/.git": Read})

	d.ProtectGit = GitWritable
	p = mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{"/wt/.git": Write, "/main/.git/worktrees/wt/hooks": Write, "/main/.git/hooks": Write})

	d.ProtectGit, d.ReadFile = GitDefault, nil
	p = mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{"/wt/.git": Write, "/main/.git/worktrees/wt/hooks": Write, "/main/.git/hooks": Read})
}

func TestHostileGitdirOnlyProtectsMore(t *testing.T) {
	// The sandboxed command can write /repo/.git as a file pointing anywhere;
	// the result may only lower access.
	fsys := fakeFS{"/repo/.git": "gitdir: /\n", "/commondir": "/etc"}
	d := wsDefaults()
	d.ReadFile = fsys.ReadFile
	p := mustResolve(t, Request{}, d)
	base := mustResolve(t, Request{}, wsDefaults())
	for _, path := range []string{"/", "/hooks", "/config", "/etc/hooks", "/repo/x", "/tmp/rf/a", "/etc/passwd"} {
		if p.AccessAt(path) > base.AccessAt(path) {
			t.Errorf("%s widened to %s", path, p.AccessAt(path))
		}
	}
	wantAccess(t, p, map[string]Access{"/hooks": Read, "/repo/.git": Read, "/repo/x": Write})
}

func TestProtectedSubpathsList(t *testing.T) {
	got := ProtectedSubpaths(GitDefault)
	if len(got) != len(allProtected) {
		t.Fatalf("got %v", got)
	}
	for i := range got {
		if got[i] != allProtected[i] {
			t.Errorf("got %v, want %v", got, allProtected)
		}
	}
	if ro := ProtectedSubpaths(GitReadOnly); ro[0] != ".git" {
		t.Errorf("read-only list %v", ro)
	}
	if w := ProtectedSubpaths(GitWritable); w[0] != ".bashrc" {
		t.Errorf("writable list %v", w)
	}
}

func TestRedundantWriteGrantAddsNoRoot(t *testing.T) {
	// An approved single file inside the writable root (as the write tools
	// mint) and a temp dir inside the root are not new roots: nothing is
	// layered beneath a path that may be a regular file.
	d := wsDefaults()
	d.TempDir = "/repo/.tmp"
	a := Approve(Grant{Entries: []Entry{{Path: "/repo/notes.txt", Access: Write}}})
	p := mustResolve(t, Request{Approval: a}, d)
	for _, l := range p.Layers {
		if Contains("/repo/notes.txt", l.Path) || Contains("/repo/.tmp", l.Path) {
			t.Errorf("layer under a redundant grant: %+v", l)
		}
	}
	if got := p.WritableRoots().Roots; len(got) != 1 || got[0] != "/repo" {
		t.Errorf("roots %v", got)
	}
}
