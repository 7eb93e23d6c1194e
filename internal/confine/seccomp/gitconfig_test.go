package seccomp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

// gitWritten are config files as git itself writes them: each must pass.
var gitWritten = []string{
	"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
	"[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n",
	"[user]\n\temail = x@example.com\n\tname = \"A \\\"quoted\\\" name\"\n",
	"[remote \"origin\"]\n\turl = https://example.com/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
	"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
	"[submodule \"lib/a\"]\n\turl = ../a.git\n\tactive = true\n",
	"# comment\n; other\n[core]\n\tbare ; a comment\n\tsymlinks=false # inline\n",
	"",
}

var gitRefused = []string{
	"[core]\n\thooksPath = .githooks\n",
	"[core]\n\tfsmonitor = ./evil.sh\n",
	"[CORE]\n\tFsMonitor = ./evil.sh\n",
	"[core]\n\tsshCommand = sh -c evil\n",
	"[core]\n\tpager = evil\n",
	"[core]\n\teditor = evil\n",
	"[include]\n\tpath = ../evil.cfg\n",
	"[includeIf \"gitdir:/\"]\n\tpath = ../evil.cfg\n",
	"[alias]\n\tst = !sh -c evil\n",
	"[filter \"x\"]\n\tclean = evil\n",
	"[diff \"x\"]\n\ttextconv = evil\n",
	"[credential]\n\thelper = !evil\n",
	"[remote \"o\"]\n\turl = ext::sh -c evil\n",
	"[remote \"o\"]\n\tpushurl = fd::3\n",
	"[remote \"o\"]\n\turl = -oProxyCommand=evil\n",
	"[remote \"o\"]\n\tuploadpack = evil\n",
	"[submodule \"x\"]\n\tupdate = !evil\n",
	"[core.x]\n\tbare = true\n",                      // old-style subsection
	"[core] fsmonitor = evil\n",                      // key on the header line
	"[core]\n\tbare = tr\\\n\tue\n",                  // line continuation
	"bare = true\n",                                  // key before a section
	"[core]\n\tfsmonitor\x00 = x\n",                  // control character
	"[user]\n\tname = \"unterminated\n",              // open quote
	"[remote]\n\turl = https://x\n",                  // remote without a name
	"[user \"x\"]\n\tname = y\n",                     // user takes no subsection
	"[remote \"o]\n\turl = https://x\n",              // bad subsection
	strings.Repeat("# padding\n", maxGitConfig/10+1), // too large
}

func TestCheckGitConfig(t *testing.T) {
	for _, c := range gitWritten {
		if err := checkGitConfig([]byte(c)); err != nil {
			t.Errorf("refused %q: %v", c, err)
		}
	}
	for _, c := range gitRefused {
		if err := checkGitConfig([]byte(c)); err == nil {
			t.Errorf("accepted %q", c[:min(len(c), 60)])
		}
	}
}

// TestCheckGitConfigRealGit has git write the config of ordinary work and
// checks every file passes, then that git reads the refused samples as
// the keys the check feared (so the refusals are not of files git would
// ignore anyway).
func TestCheckGitConfigRealGit(t *testing.T) {
	_, err := exec.LookPath("git")
	testenv.Need(t, "git", err)
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	run("config", "user.email", "x@example.com")
	run("config", "user.name", "X Y")
	run("remote", "add", "origin", "https://example.com/r.git")
	run("config", "branch.main.remote", "origin")
	run("config", "branch.main.merge", "refs/heads/main")
	data, err := os.ReadFile(filepath.Join(dir, ".git/config"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkGitConfig(data); err != nil {
		t.Errorf("git's own config refused: %v\n%s", err, data)
	}
	for _, c := range gitRefused[:12] {
		f := filepath.Join(dir, "probe.cfg")
		if err := os.WriteFile(f, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("git", "config", "-f", f, "--list").Output()
		if err != nil || len(strings.TrimSpace(string(out))) == 0 {
			t.Errorf("git reads nothing from refused sample %q: %v", c, err)
		}
	}
}

// FuzzCheckGitConfig: whatever the check accepts, git itself reads as
// allow-listed keys only (git is the oracle: a parser difference that let
// a key through would show here).
func FuzzCheckGitConfig(f *testing.F) {
	for _, c := range append(append([]string{}, gitWritten...), gitRefused[:len(gitRefused)-1]...) {
		f.Add(c)
	}
	gitPath, _ := exec.LookPath("git")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		if checkGitConfig([]byte(s)) != nil || gitPath == "" {
			return
		}
		file := filepath.Join(dir, "c.cfg")
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(gitPath, "config", "-f", file, "--list", "--name-only").Output()
		if err != nil {
			return // git refuses the file too: it would not be read
		}
		for _, name := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if name == "" {
				continue
			}
			first, rest, _ := strings.Cut(name, ".")
			key := rest[strings.LastIndexByte(rest, '.')+1:]
			if !gitConfigKeys[first][key] {
				t.Fatalf("accepted %q, git reads key %q", s, name)
			}
		}
	})
}
