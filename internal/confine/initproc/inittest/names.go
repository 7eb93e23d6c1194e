//go:build linux

package inittest

import (
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// evilConfig prints a git config that runs ./x whenever git looks at the
// work tree (core.fsmonitor).
const evilConfig = `printf '[core]\n\tfsmonitor = ./x\n'`

// nameAttacks plant, at some depth of the workspace, something the host
// runs later: protection by name (policy.MatchProtectedName), which no
// mount expresses. Each exits 0 only when the thing is really there.
var nameAttacks = []Attack{
	{Name: "name-nested-repo-fsmonitor", Script: `cd "$ROOT/work" && mkdir -p src/inner && cd src/inner && git init -q && git config core.fsmonitor ./x; grep -q fsmonitor .git/config`},
	{Name: "name-modules-config", Script: `mkdir -p "$ROOT/.git/modules/x" && ` + evilConfig + ` > "$ROOT/.git/modules/x/config" && grep -q fsmonitor "$ROOT/.git/modules/x/config"`},
	{Name: "name-worktrees-commondir", Script: `mkdir -p "$ROOT/.git/worktrees/w" && echo "$OUT" > "$ROOT/.git/worktrees/w/commondir" && test -s "$ROOT/.git/worktrees/w/commondir"`},
	{Name: "name-husky-hook", Script: `mkdir -p "$ROOT/work/.husky" && echo x > "$ROOT/work/.husky/pre-commit"`},
	{Name: "name-githooks-hook", Script: `mkdir -p "$ROOT/work/.githooks" && echo x > "$ROOT/work/.githooks/pre-commit"`},
	{Name: "name-ringfence-toml-at-depth", Script: `mkdir -p "$ROOT/work/src/app" && echo x > "$ROOT/work/src/app/.ringfence.toml"`},
	{Name: "name-cursor-mcp-at-depth", Script: `mkdir -p "$ROOT/work/a/.cursor" && echo '{}' > "$ROOT/work/a/.cursor/mcp.json"`},
	{Name: "name-envrc", Script: `echo x > "$ROOT/work/.envrc"`},
	{Name: "name-rename-dir-onto-git", Script: `cd "$ROOT/work" && mkdir -p r prep/hooks && ` + evilConfig + ` > prep/config && mv prep r/.git && grep -q fsmonitor r/.git/config`},
	{Name: "name-hardlink-nested-config", Script: `cd "$ROOT/work" && git init -q n && ln n/.git/config alias && ` + evilConfig + ` >> alias && grep -q fsmonitor n/.git/config`},
	{Name: "name-write-open-nested-config", Script: `cd "$ROOT/work" && git init -q n && ` + evilConfig + ` >> n/.git/config && grep -q fsmonitor n/.git/config`},
	{Name: "name-truncate-nested-config", Script: `cd "$ROOT/work" && git init -q n && truncate -s 0 n/.git/config && test ! -s n/.git/config`},
	{Name: "name-git-file-to-prepared-dir", Script: `cd "$ROOT/work" && mkdir -p r evil && ` + evilConfig + ` > evil/config && echo 'gitdir: ../evil' > r/.git && grep -q gitdir r/.git`},
	{Name: "name-config-lock-fd-after-rename", Script: `cd "$ROOT/work" && mkdir -p r/.git && perl -e 'open(my $f, ">", "r/.git/config.lock") or die; syswrite($f, "[core]\n\tbare = false\n"); rename("r/.git/config.lock", "r/.git/config") or die; syswrite($f, "[core]\n\tfsmonitor = ./x\n")' && grep -q fsmonitor r/.git/config`},
}

func init() { Attacks = append(Attacks, nameAttacks...) }

// gitWork is the ordinary work that must succeed under every backend, in
// a workspace with no .git and in a repository made inside it.
const gitWork = `set -e
export HOME="$ROOT/work" GIT_CONFIG_NOSYSTEM=1
cd "$ROOT"
git init -q -b main
git config user.email x@example.com
git config user.name X
git remote add origin https://example.com/r.git
echo a > a.txt && git add a.txt && git commit -qm one
git checkout -qb feat
echo b >> a.txt && git stash -q && git stash pop -q
git commit -qam two
git checkout -q main
echo c > c.txt && git add c.txt && git commit -qm three
git checkout -q feat && git rebase -q main
test "$(git log --oneline | wc -l)" = 3
mkdir -p work/lib && cd work/lib && git init -q && git config user.email y@example.com
echo x > x && git add x && git commit -qm nested
cd "$ROOT" && git status --porcelain >/dev/null
git worktree add -q work/side -b side && echo s > work/side/s.txt
git -C work/side add s.txt && git -C work/side commit -qm side
echo done`

// GitFromNothing runs real git through confine in a workspace without a
// .git: init, config, remote add, add, commit, checkout -b, stash, rebase,
// and a nested repository, all of which must succeed; the configs git
// wrote are installed by content and name no program.
func GitFromNothing(t *testing.T, confine Confiner) {
	t.Helper()
	e := NewEnv(t)
	must(t, os.RemoveAll(e.Root+"/.git"))
	res := confine(t, e, e.Policy(policy.NetDeny), gitWork, nil)
	if res.Code != 0 || !strings.Contains(res.Stdout, "done") {
		t.Fatalf("git from nothing failed (exit %d)\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	data, err := os.ReadFile(e.Root + "/.git/config")
	must(t, err)
	if !strings.Contains(string(data), "x@example.com") || !strings.Contains(string(data), "example.com/r.git") {
		t.Fatalf("config not installed: %s", data)
	}
}

// RunNameAttacks runs only the name attacks (for a backend whose own suite
// is not RunSuite), each unconfined (it must work) and confined.
func RunNameAttacks(t *testing.T, confine Confiner) {
	for _, a := range nameAttacks {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			runAttack(t, a, policy.NetDeny, confine, "")
		})
	}
}
