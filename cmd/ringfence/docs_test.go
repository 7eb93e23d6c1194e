package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Documentation that is true: every ```console block in README.md and
// docs/ is run against the built binary and must print what it shows, and
// every other block in the files this test owns says how it is checked.
//
// A console block's "$ " lines run as one sh script (so `cd` carries over)
// in a fresh workspace, /home/me/project as the document names it, with a
// fresh HOME (/home/me): nobody's own policy or caches change the output.
// `<!-- doc-setup: CMD -->` above a block runs CMD there first, unconfined
// and unshown; `<!-- doc-file: PATH -->` above any block writes its body to
// PATH in the workspace of every console block of that file.

// ownedDocs must mark every block: console (run), or one of docMarkers.
var ownedDocs = []string{"README.md", "docs/run_code.md", "docs/backends.md", "docs/threat-model.md", "docs/architecture.md"}

// docMarkers say how a block that is not run here is kept true.
var docMarkers = []string{
	"install",    // the README's install commands: TestInstallFromCheckout
	"checked-by", // a named Go test compares it with a real run
	"doc-file",   // an input the examples use: true by construction
	"not-run",    // cannot run in a test, with the reason
}

func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../../README.md"}, files...)
}

func rel(path string) string { return strings.TrimPrefix(path, "../../") }

func TestDocBlocksAccounted(t *testing.T) {
	tests := testFuncs(t)
	for _, f := range ownedDocs {
		blocks, err := fencedBlocks("../../" + f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.info == "console" {
				continue
			}
			var how []string
			for _, m := range docMarkers {
				if b.marker(m) != "" {
					how = append(how, m)
				}
			}
			if len(how) == 0 {
				t.Errorf("%s:%d: a ```%s block that nothing checks: make it a console example, or mark it <!-- %s: … -->",
					f, b.line, b.info, strings.Join(docMarkers, ": … --> / <!-- "))
			}
			if name := b.marker("checked-by"); name != "" && !tests[name] {
				t.Errorf("%s:%d: checked-by %s, but no such test exists", f, b.line, name)
			}
		}
	}
}

// testFuncs are the names of the Test functions of the repository.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?m)^func (Test\w+)\(`)
	names := map[string]bool{}
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// buildRingfence builds this tree's binary, as the README says, once.
func buildRingfence(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	c := exec.Command("go", "build", "-o", filepath.Join(bin, "ringfence"), ".")
	c.Env = goEnv("CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	return bin
}

func TestDocExamples(t *testing.T) {
	bin := buildRingfence(t)
	ran := 0
	for _, f := range docFiles(t) {
		blocks, err := fencedBlocks(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.info != "console" {
				continue
			}
			ran++
			t.Run(rel(f)+":"+strconv.Itoa(b.line), func(t *testing.T) {
				cmds, want := consoleScript(b.body)
				if len(cmds) == 0 {
					t.Fatal("a console block with no $ command")
				}
				got := runDocBlock(t, bin, blocks, b, cmds)
				if !outputMatches(want, got) {
					t.Errorf("%s:%d: the output differs from the document\n--- document\n%s--- produced (paths as the document names them)\n%s", rel(f), b.line, want, got)
				}
			})
		}
	}
	if ran == 0 {
		t.Fatal("no console example found")
	}
}

// runDocBlock runs a console block's commands and returns what they
// printed (stdout and stderr as one stream, in order) with the temporary
// home shown as /home/me.
func runDocBlock(t *testing.T, bin string, all []docBlock, b docBlock, cmds []string) string {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	ws := filepath.Join(home, "project")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, o := range all {
		if p := o.marker("doc-file"); p != "" {
			dst := filepath.Join(ws, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, []byte(o.body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := docEnv(home, bin)
	if setup := b.marker("doc-setup"); setup != "" {
		c := exec.Command("sh", "-ec", setup)
		c.Dir, c.Env = ws, env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("doc-setup: %v: %s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", strings.Join(cmds, "\n"))
	c.Dir, c.Env = ws, env
	out, _ := c.CombinedOutput() // exit statuses are part of what examples show, not failures
	if ctx.Err() != nil {
		t.Fatalf("the example did not finish: %s", out)
	}
	return strings.ReplaceAll(string(out), home, "/home/me")
}

// docEnv is a fresh person's environment: the built ringfence first on
// PATH, a new HOME, git identity, Go offline with its toolchain as is.
func docEnv(home, bin string) []string {
	keep := []string{"PATH", "LANG", "TZ"}
	env := []string{"HOME=" + home, "USER=me", "LOGNAME=me", "TERM=dumb",
		"GIT_AUTHOR_NAME=me", "GIT_AUTHOR_EMAIL=me@example.com", "GIT_COMMITTER_NAME=me", "GIT_COMMITTER_EMAIL=me@example.com",
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-buildvcs=false"}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if !slices.Contains(keep, k) {
			continue
		}
		if k == "PATH" {
			v = bin + ":" + v
		}
		env = append(env, k+"="+v)
	}
	return env
}

func TestOutputMatches(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a b\nc\n", "a  b c", true}, // a wrapped line in a document
		{"a b", "a b c", false},      // drift: more output
		{"a b c", "a b", false},      // drift: less output
		{"exit … done", "exit 3 in 0.2s done", true},
		{"…", "anything at all\nand more", true},
		{"ok\t…\n", "ok  \texample.com/m\t0.012s\n", true},
		{"limit of 50 MiB", "limit of 52428800 bytes", false},
		{"a.b", "axb", false}, // the document's text is literal, not a pattern
	} {
		if got := outputMatches(tc.want, tc.got); got != tc.ok {
			t.Errorf("outputMatches(%q, %q) = %v", tc.want, tc.got, got)
		}
	}
}

func TestParseBlocks(t *testing.T) {
	md := "# x\n<!-- doc-setup: git init -q -->\n<!-- not-run: needs a network -->\n```console\n$ ringfence run -- a \\\n  b\nout\n```\n\ntext\n<!-- stale -->\n\n````sh\n```\n````\n~~~\nunclosed"
	bs := parseBlocks(md)
	if len(bs) != 3 {
		t.Fatalf("%d blocks: %+v", len(bs), bs)
	}
	if bs[0].info != "console" || bs[0].marker("doc-setup") != "git init -q" || bs[0].marker("not-run") != "needs a network" || bs[0].line != 4 {
		t.Errorf("block 0: %+v", bs[0])
	}
	cmds, want := consoleScript(bs[0].body)
	if len(cmds) != 1 || cmds[0] != "ringfence run -- a \\\n  b" || want != "out\n" {
		t.Errorf("console: %q %q", cmds, want)
	}
	if bs[1].info != "sh" || bs[1].body != "```\n" || len(bs[1].markers) != 1 || bs[1].markers[0] != "stale" {
		t.Errorf("block 1: %+v", bs[1])
	}
	if bs[2].body != "unclosed\n" {
		t.Errorf("block 2: %+v", bs[2])
	}
}

func FuzzParseBlocks(f *testing.F) {
	f.Add("```console\n$ a\nb\n```\n")
	f.Add("<!-- x: y -->\n~~~~ sh\n~~~\n~~~~\n")
	f.Fuzz(func(t *testing.T, md string) {
		for _, b := range parseBlocks(md) {
			if b.line < 1 || !strings.Contains(md, strings.TrimSuffix(b.body, "\n")) {
				t.Fatalf("block %+v not from the input", b)
			}
			consoleScript(b.body)
		}
	})
}
