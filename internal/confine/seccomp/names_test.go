package seccomp

import (
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func TestNameGuardDecide(t *testing.T) {
	g := &NameGuard{Roots: []string{"/w", "/tmp/t"}}
	for _, c := range []struct {
		path string
		a    act
		want verdict
	}{
		{"/w/src/main.go", actFile, vAllow},
		{"/w/src/main.go", actWrite, vAllow},
		{"/elsewhere/.bashrc", actFile, vAllow}, // outside every root: the mounts' and Landlock's
		{"/w/src/app/.ringfence.toml", actFile, vRefuse},
		{"/w/a/.cursor/mcp.json", actFile, vRefuse},
		{"/w/a/.cursor/mcp.json", actWrite, vRefuse},
		{"/w/.envrc", actSource, vRefuse},
		{"/w/.vscode", actMkdir, vAllow},
		{"/w/.vscode", actTree, vRefuse},
		{"/tmp/t/x/.claude/settings.json", actFile, vRefuse},
		{"/w/.husky/pre-commit", actFile, vRefuse},
		{"/w/.githooks/pre-commit", actFile, vRefuse},
		{"/w/tools/post-checkout", actWrite, vRefuse},
		// git from nothing
		{"/w/.git", actMkdir, vAllow},
		{"/w/.git/hooks", actMkdir, vAllow},
		{"/w/.git/hooks/pre-commit.sample", actFile, vAllow},
		{"/w/.git/hooks/pre-commit.sample", actWrite, vAllow},
		{"/w/.git/hooks/pre-commit", actFile, vRefuse},
		{"/w/.git/hooks/x.sample", actTree, vRefuse},
		{"/w/.git/hooks/sub/x.sample", actFile, vRefuse},
		{"/w/.git/config", actFile, vConfig},
		{"/w/.git/config", actWrite, vRefuse},
		{"/w/.git/config", actSource, vRefuse},
		{"/w/.git/config.lock", actFile, vAllow},
		{"/w/src/inner/.git/config", actFile, vConfig},
		{"/w/.git/modules/x/config", actFile, vConfig},
		{"/w/.git/modules/x/config", actWrite, vRefuse},
		{"/w/.git/worktrees/w1/commondir", actFile, vRefuse},
		{"/w/.git/worktrees/w1/HEAD", actFile, vAllow},
		{"/w/.git/worktrees/w1/logs", actTree, vRefuse}, // a renamed directory or symlink in the tree
		{"/w/.git/modules/x", actTree, vRefuse},
		{"/w/.git/refs/heads", actTree, vAllow},
		{"/w/.git/index", actFile, vAllow},
		{"/w/src/inner/.git", actFile, vRefuse},   // a gitdir: pointer
		{"/w/src/inner/.git", actTree, vRefuse},   // a prepared directory or a symlink
		{"/w/src/inner/.git", actSource, vRefuse}, // moved away, then back
		{"/w/src/inner/.git", actMkdir, vAllow},
		{"/w/src/inner/.git/HEAD", actFile, vAllow},
	} {
		if got := g.decide(c.path, c.a); got != c.want {
			t.Errorf("%s act %d: got %d, want %d", c.path, c.a, got, c.want)
		}
	}
	var none *NameGuard
	if none.decide("/w/.bashrc", actFile) != vAllow {
		t.Error("a nil guard refuses")
	}
	w := &NameGuard{Roots: []string{"/w"}, Names: policy.NameProtection{GitWritable: true, Extra: []string{"secrets"}}}
	if w.decide("/w/.git/config", actWrite) != vAllow || w.decide("/w/a/secrets", actFile) != vRefuse {
		t.Error("NameProtection options ignored")
	}
}
