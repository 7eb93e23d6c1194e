//go:build linux

package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// TestGitPointerRefused: write_file, edit_file and WriteStream refuse a
// file at a ".git" itself at any depth (a "gitdir:" pointer, which the
// backends' guard admits only with checked content), through both
// resolvers; a write layer at exactly the path, git left writable
// (protect_git = "writable") and node_modules reopen it, as they do the
// other names; the control writes the same bytes by path.
func TestGitPointerRefused(t *testing.T) {
	const pointer = "gitdir: /tmp/attacker-repo\n"
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			ctl := filepath.Join(f.root, "ctl/.git")
			if err := os.MkdirAll(filepath.Dir(ctl), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ctl, []byte(pointer), 0o644); err != nil {
				t.Fatal("control:", err)
			}
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			for _, p := range []string{"sub/.git", "/workspace/a/b/.git", "ctl/.git"} {
				_, err := w.WriteFile(p, []byte(pointer))
				if o := wantKind(t, "WriteFile "+p, err, outcome.DeniedByPolicy); o.Reason != ReasonProtectedName {
					t.Errorf("WriteFile %s: reason %q", p, o.Reason)
				}
				_, err = w.WriteStream(p, bytes.NewReader([]byte(pointer)), StreamOptions{MaxBytes: 1 << 10})
				wantKind(t, "WriteStream "+p, err, outcome.DeniedByPolicy)
			}
			_, err := w.EditFile("ctl/.git", "/tmp/attacker-repo", "/elsewhere", false)
			wantKind(t, "EditFile", err, outcome.DeniedByPolicy)
			for _, p := range []string{"sub/.git", "a/b/.git"} {
				if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil {
					t.Errorf("a refused pointer was written: %s", p)
				}
			}
			if _, err := w.WriteFile("node_modules/pkg/.git", []byte(pointer)); err != nil {
				t.Errorf("under node_modules: %v", err)
			}
			if _, err := w.WriteFile("proj/.git/HEAD", []byte("ref: refs/heads/main\n")); err != nil {
				t.Errorf("inside a subproject's .git: %v", err)
			}

			pol := policyFor(f.root, policy.WorkspaceWrite)
			pol.Names.GitWritable = true
			if _, err := open(t, pol, mode.walk).WriteFile("sub/.git", []byte(pointer)); err != nil {
				t.Errorf("git writable: %v", err)
			}
			pol = policyFor(f.root, policy.WorkspaceWrite)
			pol.Layers = append(pol.Layers, policy.Layer{Path: f.root + "/ctl/.git", Access: policy.Write, Origin: policy.FromApproval})
			policy.SortLayers(pol.Layers)
			if _, err := open(t, pol, mode.walk).WriteFile("ctl/.git", []byte(pointer)); err != nil {
				t.Errorf("a write layer at exactly the pointer: %v", err)
			}
		})
	}
}
