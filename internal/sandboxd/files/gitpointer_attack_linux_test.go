//go:build linux

package files

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// TestAttackGitPointer: a ".git" file at any depth is a "gitdir:" pointer
// telling git which directory's config, hooks and objects govern the tree
// around it; the backends' guard lets a command write one only when it
// points into a git directory the guard holds. A PUT of sub/.git with a
// pointer anywhere else was written as given. The naive control writes
// it; the handler refuses it (403 protected-name), also as a replacement
// of one already there and through a link to it, and leaves what is
// inside a real .git directory of a subproject writable where git's
// rules allow it (HEAD).
func TestAttackGitPointer(t *testing.T) {
	f, n := attackFix(t, nil)
	const pointer = "gitdir: /tmp/attacker-repo\n"
	if err := n.write("ctl/.git", pointer); err != nil {
		t.Fatalf("control: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "ctl/.git")); string(b) != pointer {
		t.Fatal("control: the naive server did not write the pointer")
	}
	writeFile(t, filepath.Join(f.root, "old/.git"), "gitdir: ../real/.git\n")
	must(t, os.MkdirAll(filepath.Join(f.root, "lnk"), 0o755))
	must(t, os.Symlink("../old/.git", filepath.Join(f.root, "lnk/ptr")))
	for _, p := range []string{"sub/.git", "a/b/c/.git", "old/.git", "lnk/ptr", "sub%2F.git"} {
		r := f.put(t, "/v1/files/"+p, pointer)
		if r.status != http.StatusForbidden || r.errorCode(t) != CodePermissionDenied {
			t.Errorf("PUT %s: %d %s, want 403", p, r.status, r.body)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "old/.git")); string(b) != "gitdir: ../real/.git\n" {
		t.Errorf("the pointer was replaced: %q", b)
	}
	for _, p := range []string{"sub", "a"} {
		if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil {
			t.Errorf("a refused pointer left its parents behind: %s", p)
		}
	}
	// Still writable: a subproject's git directory's own files, and names
	// that only look alike.
	must(t, os.MkdirAll(filepath.Join(f.root, "proj/.git"), 0o755))
	for _, p := range []string{"proj/.git/HEAD", "proj/.gitignore", "proj/x.git", "node_modules/pkg/.git"} {
		if r := f.put(t, "/v1/files/"+p, "ref: refs/heads/main\n"); r.status != http.StatusNoContent {
			t.Errorf("PUT %s: %d %s, want 204", p, r.status, r.body)
		}
	}
	f.checkNoTemp(t)
}

func TestAttackGitPointerNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestAttackGitPointer$")
}
