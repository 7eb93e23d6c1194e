package corpus

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// ringfenceBinary builds the static binary once, as the README does.
func ringfenceBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ringfence-corpus-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "ringfence")
		cmd := exec.Command("go", "build", "-o", binary, "github.com/ringfence/ringfence/cmd/ringfence")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// user is the environment of a person running ringfence: a home of its
// own (a temp dir, so the real one is never touched), the Go toolchain on
// PATH, and secrets that must never reach a confined command.
type user struct {
	home string
	env  []string
}

func newUser(t *testing.T) *user {
	t.Helper()
	home := t.TempDir()
	// A lived-in home: ringfence keeps its own state under these, and a
	// fresh one would show as a change the command did not make.
	for _, d := range []string{".cache", ".local/state", ".config"} {
		must(t, os.MkdirAll(filepath.Join(home, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(home, ".gitconfig"),
		[]byte("[user]\n\tname = Corpus\n\temail = corpus@example.invalid\n[init]\n\tdefaultBranch = main\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	must(t, os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("secret key\n"), 0o600))
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	must(t, err)
	goBin := filepath.Join(strings.TrimSpace(string(goroot)), "bin")
	return &user{home: home, env: []string{
		"HOME=" + home, "USER=corpus", "LANG=C.UTF-8",
		"PATH=" + goBin + ":/usr/local/bin:/usr/bin:/bin",
		"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local",
		"GITHUB_TOKEN=ghp_corpussecret", "AWS_SECRET_ACCESS_KEY=corpussecret",
		"OPENAI_API_KEY=sk-corpussecret", "npm_config__authToken=corpussecret",
	}}
}

// run runs script with sh in dir, unconfined or through ringfence run with
// no flags, and returns the exit code and combined output.
func (u *user) run(t *testing.T, dir, script string, confined bool) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	argv := []string{"sh", "-c", script}
	if confined {
		argv = append([]string{ringfenceBinary(t), "run", "--"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, u.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return code, out.String()
}

// project is one corpus case: files to lay out, a script, and what its
// output must show in both runs.
type project struct {
	name   string
	setup  func(t *testing.T, dir string)
	script string
	want   string // a line both runs must print
}

func TestCorpusZeroFlags(t *testing.T) {
	for _, p := range projects(t) {
		t.Run(p.name, func(t *testing.T) {
			u := newUser(t)
			bare, confined := t.TempDir(), t.TempDir()
			p.setup(t, bare)
			p.setup(t, confined)
			bcode, bout := u.run(t, bare, p.script, false)
			if bcode != 0 || !strings.Contains(bout, p.want) {
				t.Fatalf("unconfined control failed (exit %d), the case proves nothing:\n%s", bcode, bout)
			}
			// The control may change the home (caches): measure the
			// confined run against a fresh snapshot of it.
			before := snapshot(t, u.home)
			ccode, cout := u.run(t, confined, p.script, true)
			if ccode != bcode || !strings.Contains(cout, p.want) {
				t.Errorf("confined: exit %d (unconfined %d), want %q in the output:\n%s", ccode, bcode, p.want, cout)
			}
			if strings.Contains(cout, "corpussecret") || strings.Contains(cout, "ghp_") {
				t.Errorf("a secret from ringfence's environment reached the command:\n%s", cout)
			}
			if diff := compare(before, snapshot(t, u.home)); diff != "" {
				t.Errorf("the confined run changed the user's home on the host:\n%s", diff)
			}
		})
	}
}

func projects(t *testing.T) []project {
	return []project{
		{
			name:   "go-module",
			setup:  copyModule("github.com/yosida95/uritemplate/v3"),
			script: "go build ./... && go vet ./... && go test -count=1 ./... && env | grep -c -i secret || echo no-secrets",
			want:   "ok  \tgithub.com/yosida95/uritemplate/v3",
		},
		{
			name:  "git",
			setup: func(*testing.T, string) {},
			script: `set -e
git init -q
echo a > a.txt && git add a.txt && git commit -qm one
git checkout -qb feature && echo b > b.txt && git add b.txt && git commit -qm two
git checkout -q main && echo c > c.txt && git add c.txt && git commit -qm three
git checkout -q feature && git rebase -q main
echo d >> a.txt && git stash -q && git stash pop -q && git commit -qam four
git worktree add -q wt main
git config user.email agent@example.invalid && git remote add origin https://example.invalid/r.git
git log --oneline | wc -l | sed 's/^ */commits=/'`,
			want: "commits=4",
		},
		{
			name: "make-gcc",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "hello.c", "#include <stdio.h>\nint main(void){puts(\"hello from c\");return 0;}\n")
				write(t, dir, "Makefile", "hello: hello.c\n\tcc -O1 -o hello hello.c\n")
			},
			script: "make -s && ./hello",
			want:   "hello from c",
		},
		{
			name: "node",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "lib/package.json", `{"name":"corpus-lib","version":"1.0.0","main":"index.js"}`)
				write(t, dir, "lib/index.js", "module.exports = (a, b) => a + b;\n")
				write(t, dir, "sum.test.js", "const test = require('node:test');\nconst assert = require('node:assert');\nconst add = require('corpus-lib');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n")
			},
			script: "npm init -y >/dev/null && npm install --offline --no-audit --no-fund ./lib >/dev/null && node --test sum.test.js",
			want:   "# pass 1",
		},
		{
			name: "python-venv",
			setup: func(t *testing.T, dir string) {
				write(t, dir, "hello.py", "import sys\nprint('venv' if sys.prefix != sys.base_prefix else 'system')\n")
			},
			script: "python3 -m venv .venv && .venv/bin/python hello.py",
			want:   "venv",
		},
	}
}

// A command run from a terminal sees a terminal (a new one ringfence
// relays, not the user's own), as it does unconfined.
func TestCorpusTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script(1) is needed (bsdutils): %v", err)
	}
	u := newUser(t)
	probe := "test -t 0 && test -t 1 && echo on-a-terminal; tty"
	for _, confined := range []bool{false, true} {
		inner := "sh -c '" + probe + "'"
		if confined {
			inner = ringfenceBinary(t) + " run -- " + inner
		}
		code, out := u.run(t, t.TempDir(), "script -qec \""+inner+"\" /dev/null", false)
		// Inside the linux and bwrap backends the new terminal is named
		// /dev/console (the view's /dev/pts is a devpts of its own).
		if code != 0 || !strings.Contains(out, "on-a-terminal") ||
			!(strings.Contains(out, "/dev/pts/") || confined && strings.Contains(out, "/dev/console")) {
			t.Errorf("confined=%v: exit %d, want a terminal seen:\n%s", confined, code, out)
		}
	}
}

// copyModule copies a module from the module cache into the workspace,
// writable, as an agent would check one out.
func copyModule(path string) func(t *testing.T, dir string) {
	return func(t *testing.T, dir string) {
		t.Helper()
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
		if err != nil {
			t.Fatalf("module %s is not in the module cache: %v", path, err)
		}
		src := strings.TrimSpace(string(out))
		must(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dir, rel), 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
		}))
	}
}

// snapshot records every entry under root: mode, size and content hash
// (modification time too, so a rewrite with the same bytes shows).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	must(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ringfenceState(root, p) {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			// A directory's size and time change with its entries, which
			// are compared themselves.
			m[p] = fi.Mode().String()
			return nil
		}
		m[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	}))
	return m
}

// ringfenceState reports whether p is ringfence's own state under the home
// (its probe cache, the private home layers it keeps per workspace): what
// ringfence itself writes, never the confined command.
func ringfenceState(home, p string) bool {
	rel, err := filepath.Rel(home, p)
	if err != nil {
		return false
	}
	switch rel {
	case ".cache/ringfence", ".local/state/ringfence", ".config/ringfence":
		return true
	}
	return false
}

func compare(before, after map[string]string) string {
	var lines []string
	for p, a := range after {
		if b, ok := before[p]; !ok {
			lines = append(lines, "added   "+p)
		} else if a != b {
			lines = append(lines, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			lines = append(lines, "removed "+p)
		}
	}
	sort.Strings(lines)
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("… and %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(text), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
