package seccomp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

// The name guard's scene: a workspace (one writable root) where nothing
// exists but what each case's setup makes. A case's script runs under
// `sh -c` once unconfined (the control: the attack must work) and once
// under the filter with Rules.Names (it must not). Real git does the
// ordinary work.
const scriptEnv = "RINGFENCE_SECCOMP_SCRIPT"

func init() { helpers["namesup"] = helperNameSupervisor }

// helperNameSupervisor is the sandbox init in miniature: filter this
// thread with GuardCreate and GuardWrite, supervise with Rules.Names from
// the other threads, run the script in the workspace.
func helperNameSupervisor() int {
	ws := os.Getenv(dirEnv)
	runtime.LockOSThread()               // never unlocked: the filtered thread dies with us
	if os.Getenv(filterEnv) == "plain" { // the benchmark's baseline
		if _, err := buildInstall(Options{}, ThisThread); err != nil {
			return 1
		}
		return runScript(ws)
	}
	l, err := buildInstall(Options{GuardCreate: true, GuardWrite: true}, ThisThread)
	if err != nil || l == nil {
		fmt.Printf("install=%v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rules := Protect{}.Rules(nil)
	rules.Names = &NameGuard{Roots: []string{ws}}
	go func() { _ = Supervise(ctx, l, rules) }()
	return runScript(ws)
}

func runScript(ws string) int {
	cmd := exec.Command("/bin/sh", "-c", os.Getenv(scriptEnv))
	cmd.Dir = ws
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 1
	}
	return 0
}

// gitEnv keeps git away from the user's and the system's config.
func gitEnv(home string) []string {
	return []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b", "PATH=/usr/bin:/bin"}
}

// runNamed runs script in a fresh workspace after setup (unconfined),
// guarded or not, and returns the workspace and the script's exit code.
func runNamed(t *testing.T, setup, script string, guarded bool) (string, int, string) {
	t.Helper()
	ws := workspace(t)
	home := t.TempDir()
	if setup != "" {
		cmd := exec.Command("/bin/sh", "-ec", setup)
		cmd.Dir, cmd.Env = ws, gitEnv(home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("setup %q: %v\n%s", setup, err, out)
		}
	}
	env := append(gitEnv(home), scriptEnv+"="+script, dirEnv+"="+ws)
	if !guarded {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir, cmd.Env = ws, env
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			code = 1
		}
		return ws, code, string(out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(env, helperEnv+"=namesup")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("guarded run: %v", err)
	}
	return ws, code, out.String()
}

func contains(ws, rel, what string) bool {
	data, err := os.ReadFile(filepath.Join(ws, rel))
	return err == nil && strings.Contains(string(data), what)
}

// nameAttack plants something the host would run later; planted reports
// whether it is there afterwards.
type nameAttack struct {
	name, setup, script string
	planted             func(ws string) bool
}

const evilConfig = `printf '[core]\n\tfsmonitor = ./evil.sh\n'`

func nameAttacks() []nameAttack {
	has := func(rel, what string) func(string) bool {
		return func(ws string) bool { return contains(ws, rel, what) }
	}
	there := func(rel string) func(string) bool {
		return func(ws string) bool { _, err := os.Lstat(filepath.Join(ws, rel)); return err == nil }
	}
	nested := "mkdir -p n && cd n && git init -q"
	return []nameAttack{
		{"nested repo core.fsmonitor + gitlink", "git init -q",
			"mkdir -p src/inner && cd src/inner && git init -q && git commit -q --allow-empty -m x; git config core.fsmonitor ./evil.sh; cd ../.. && git add src/inner",
			has("src/inner/.git/config", "fsmonitor")},
		{"git config core.hooksPath in a fresh repo", "",
			"git init -q && git config core.hooksPath .githooks", has(".git/config", "hooksPath")},
		{".git/modules/x/config", "git init -q",
			"mkdir -p .git/modules/x && " + evilConfig + " > .git/modules/x/config", has(".git/modules/x/config", "fsmonitor")},
		{"worktrees commondir", "git init -q",
			"mkdir -p .git/worktrees/w && echo /tmp/evil > .git/worktrees/w/commondir", there(".git/worktrees/w/commondir")},
		{"husky .husky/pre-commit", "", "mkdir -p .husky && echo evil > .husky/pre-commit", there(".husky/pre-commit")},
		{".githooks/pre-commit", "", "mkdir -p .githooks && echo evil > .githooks/pre-commit", there(".githooks/pre-commit")},
		{"hook name anywhere", "", "mkdir -p tools && echo evil > tools/post-checkout", there("tools/post-checkout")},
		{"src/app/.ringfence.toml", "", "mkdir -p src/app && echo 'mode=1' > src/app/.ringfence.toml", there("src/app/.ringfence.toml")},
		{".cursor/mcp.json at depth", "", "mkdir -p a/b/.cursor && echo '{}' > a/b/.cursor/mcp.json", there("a/b/.cursor/mcp.json")},
		{".envrc", "mkdir sub", "echo evil > sub/.envrc", there("sub/.envrc")},
		{"rename of a prepared dir onto .git", "mkdir -p r",
			"mkdir -p prep/hooks && " + evilConfig + " > prep/config && mv prep r/.git", has("r/.git/config", "fsmonitor")},
		{"symlink .git to a prepared dir", "mkdir -p r evil",
			evilConfig + " > evil/config; ln -s ../evil r/.git", there("r/.git")},
		{"move .git away and back", nested,
			"mv n/.git n/g && " + evilConfig + " >> n/g/config; mv n/g n/.git", has("n/.git/config", "fsmonitor")},
		{"hard link of a protected file", nested,
			"ln n/.git/config alias && " + evilConfig + " >> alias", has("n/.git/config", "fsmonitor")},
		{"hard link through a followed symlink", nested,
			"ln -s n/.git/config sl && ln -L sl alias && " + evilConfig + " >> alias", has("n/.git/config", "fsmonitor")},
		{"write-open of an existing nested .git/config", nested,
			evilConfig + " >> n/.git/config", has("n/.git/config", "fsmonitor")},
		{"write-open through /proc/self/fd", nested,
			"exec 3<n/.git/config; " + evilConfig + " >> /proc/self/fd/3", has("n/.git/config", "fsmonitor")},
		{"truncate of a protected file", nested,
			"truncate -s 0 n/.git/config", func(ws string) bool { return !contains(ws, "n/.git/config", "core") }},
		{"config.lock fd written after the rename", "",
			`mkdir -p r/.git && perl -e 'open(my $f, ">", "r/.git/config.lock") or die; syswrite($f, "[core]\n\tbare = false\n"); rename("r/.git/config.lock", "r/.git/config") or die "rename: $!"; syswrite($f, "[core]\n\tfsmonitor = ./evil.sh\n")'`,
			has("r/.git/config", "fsmonitor")},
		{".git file pointing at a prepared directory", "mkdir -p r evil",
			evilConfig + " > evil/config; echo 'gitdir: ../evil' > r/.git", there("r/.git")},
		{".git file renamed into place", "mkdir -p r evil",
			evilConfig + " > evil/config; echo 'gitdir: ../evil' > tmp && mv tmp r/.git", there("r/.git")},
		{"commondir of a real worktree redirected", nested + " && git commit -q --allow-empty -m x && git worktree add -q ../w && mkdir ../evil",
			"echo " + "'../../../../evil'" + " > n/.git/worktrees/w/commondir", has("n/.git/worktrees/w/commondir", "evil")},
		{"node_modules renamed out with .envrc and .vscode", "",
			"mkdir -p node_modules/.vscode && echo evil > node_modules/.envrc && echo '{}' > node_modules/.vscode/tasks.json && mv node_modules deep",
			there("deep/.envrc")},
		{"nested repo hook made in node_modules, moved out", "",
			"mkdir -p node_modules/x/.git/hooks && echo evil > node_modules/x/.git/hooks/pre-commit && mv node_modules/x lib",
			there("lib/.git/hooks/pre-commit")},
		{"hook-named file in node_modules, dir moved out", "",
			"mkdir -p node_modules/h && echo evil > node_modules/h/pre-commit && mv node_modules/h hooks2",
			there("hooks2/pre-commit")},
		{"node_modules tree exchanged with a plain dir", "mkdir -p sub",
			`mkdir -p node_modules/p && echo evil > node_modules/p/.envrc && perl -e 'my ($a, $b) = ("node_modules/p", "sub"); syscall(316, -100, $a, -100, $b, 2) == 0 or die "exchange: $!"'`,
			there("sub/.envrc")},
		{"symlink to a node_modules tree", "",
			"mkdir -p node_modules/p && echo evil > node_modules/p/.envrc && ln -s node_modules/p deep",
			there("deep/.envrc")},
		{"bare repository shape with a pager in its config", "",
			"mkdir -p src/objects src/refs && echo 'ref: refs/heads/main' > src/HEAD && printf '[core]\\n\\tpager = ./evil.sh\\n' > src/config",
			there("src/HEAD")},
		{"bare repository HEAD as a symlink", "",
			"mkdir -p src/objects src/refs && ln -s refs/heads/main src/HEAD", there("src/HEAD")},
		{"git init --bare in the workspace", "", "git init -q --bare src", there("src/HEAD")},
		{"submodule git dir moved out of .git/modules", "git init -q && git init -q --bare .git/modules/x",
			"mv .git/modules/x src", there("src/HEAD")},
		{"existing hook .sample renamed to a hook", nested,
			"mv n/.git/hooks/pre-commit.sample n/.git/hooks/pre-commit", there("n/.git/hooks/pre-commit")},
	}
}

func TestNameGuardAttacks(t *testing.T) {
	needSeccomp(t)
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Need(t, "git", err)
	}
	for _, a := range nameAttacks() {
		t.Run(a.name, func(t *testing.T) {
			ws, _, out := runNamed(t, a.setup, a.script, false)
			if !a.planted(ws) {
				t.Fatalf("control: the attack does not work unconfined\n%s", out)
			}
			ws, _, out = runNamed(t, a.setup, a.script, true)
			if a.planted(ws) {
				t.Errorf("guarded: planted\n%s", out)
			}
		})
	}
}

// ordinaryGit is the work that must succeed in a fresh workspace and in a
// freshly made nested repository under the guard.
const ordinaryGit = `set -e
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
git log --oneline | wc -l | grep -q 3
mkdir -p vendor/lib && cd vendor/lib && git init -q && git config user.email y@example.com
echo x > x && git add x && git commit -qm nested
cd ../.. && git status --porcelain >/dev/null
git worktree add -q wt/side -b side && git -C wt/side status --porcelain >/dev/null
echo s > wt/side/s.txt && git -C wt/side add s.txt && git -C wt/side commit -qm side
test "$(cat .git/worktrees/side/commondir)" = "../.."
grep -q "^gitdir: .*/.git/worktrees/side$" wt/side/.git
mkdir -p .vscode src/.git-notes && echo ok > src/ok.txt && truncate -s 1 src/ok.txt
echo done`

func TestNameGuardOrdinaryGit(t *testing.T) {
	needSeccomp(t)
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Need(t, "git", err)
	}
	ws, code, out := runNamed(t, "", ordinaryGit, true)
	if code != 0 || !strings.Contains(out, "done") {
		t.Fatalf("ordinary git work failed under the guard (exit %d):\n%s", code, out)
	}
	if !contains(ws, ".git/config", "x@example.com") || !contains(ws, ".git/config", "example.com/r.git") {
		t.Errorf("config not installed")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit.sample")); err != nil {
		t.Errorf("hook samples not copied: %v", err)
	}
	if matches, _ := filepath.Glob(filepath.Join(ws, ".git/.ringfence-config-*")); len(matches) > 0 {
		t.Errorf("staging files left: %v", matches)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/config.lock")); err == nil {
		t.Errorf("config.lock left behind")
	}
}

// TestNameGuardNonRoot runs the name guard's attacks and ordinary work
// again as an unprivileged user (uid 65534), from a copy of this test
// binary it can execute.
func TestNameGuardNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already not root: the tests above ran unprivileged")
	}
	testenv.NeedRoot(t)
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-names-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin, tmp := filepath.Join(dir, "seccomp.test"), filepath.Join(dir, "tmp")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^TestNameGuard(Attacks|OrdinaryGit)$", "-test.count=1", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "RINGFENCE_REQUIRE_ALL=1", "HOME=" + tmp}
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	passed := strings.Count(string(out), "--- PASS")
	t.Logf("non-root run: %d passed", passed)
	if err != nil || passed < len(nameAttacks())+2 || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("non-root run failed: %v\n%s", err, out)
	}
}

// TestNameGuardSecondMount: the workspace reached through a second mount
// (a bind mount elsewhere, which Landlock's inode-based rules let the
// command write through) is still judged by name: the guard finds the
// root by inode.
func TestNameGuardSecondMount(t *testing.T) {
	needSeccomp(t)
	testenv.NeedRoot(t)
	unshare, err := exec.LookPath("unshare")
	testenv.Need(t, "unshare(1)", err)
	for _, guarded := range []bool{false, true} {
		ws, alias := workspace(t), workspace(t)
		if err := os.Mkdir(ws+"/sub", 0o755); err != nil {
			t.Fatal(err)
		}
		script := `echo evil > "$ALIAS/sub/.envrc"; mkdir -p "$ALIAS/r/.git/hooks" && echo evil > "$ALIAS/r/.git/hooks/pre-commit"`
		run := `mount --bind "$WS" "$ALIAS" && exec "$0" -test.run='^$'`
		if !guarded {
			run = `mount --bind "$WS" "$ALIAS" && exec sh -c '` + script + `'`
		}
		cmd := exec.Command(unshare, "--mount", "--propagation", "private", "sh", "-c", run, os.Args[0])
		cmd.Env = append(gitEnv(t.TempDir()), "WS="+ws, "ALIAS="+alias, dirEnv+"="+ws, scriptEnv+"="+script, helperEnv+"=namesup")
		out, _ := cmd.CombinedOutput()
		planted := exists(ws+"/sub/.envrc") || exists(ws+"/r/.git/hooks/pre-commit")
		if !guarded && !planted {
			t.Fatalf("control: nothing planted through the second mount: %s", out)
		}
		if guarded && planted {
			t.Fatalf("guarded: planted through the second mount: %s", out)
		}
	}
}
