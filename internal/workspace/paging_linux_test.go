package workspace

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// pagingTree lays out a tree with matches everywhere, a denied subtree, a
// denied subtree with a readable carve-out (and a denied one inside that),
// names that sort around "/" ("a-b", "a/b", "a.b"), and .git.
func pagingTree(t *testing.T) (root string, pol *policy.Policy) {
	root = filepath.Join(t.TempDir(), "root")
	rnd := rand.New(rand.NewSource(1))
	for _, dir := range []string{"a", "a/b", "a-b", "a.b", "a/b/c", "z", "deny", "deny/open", "deny/open/shut", ".git", "big"} {
		for i := range 12 {
			var body strings.Builder
			for l := range 1 + rnd.Intn(30) {
				if rnd.Intn(3) == 0 {
					fmt.Fprintf(&body, "line %d needle %s\n", l, strings.Repeat("x", rnd.Intn(80)))
				} else {
					fmt.Fprintf(&body, "line %d hay\n", l)
				}
			}
			writeHost(t, filepath.Join(root, dir, fmt.Sprintf("f%02d.txt", i)), body.String())
		}
	}
	writeHost(t, filepath.Join(root, "big", "all.txt"), strings.Repeat("needle\n", 3000))
	layers := []policy.Layer{
		{Path: root, Access: policy.Write, Origin: policy.FromMode},
		{Path: root + "/deny", Access: policy.Deny, Origin: policy.FromDeployment},
		{Path: root + "/deny/open", Access: policy.Read, Origin: policy.FromDeployment},
		{Path: root + "/deny/open/shut", Access: policy.Deny, Origin: policy.FromDeployment},
		{Path: root + "/z/f03.txt", Access: policy.Deny, Origin: policy.FromDeployment},
	}
	policy.SortLayers(layers)
	return root, &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read, Layers: layers}
}

// referenceGrep is the slow, obvious search: every file filepath.WalkDir
// finds, the policy asked per path, every line holding the literal.
func referenceGrep(t *testing.T, root string, pol *policy.Policy, lit string) []string {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || pol.AccessAt(p) < policy.Read {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			if strings.Contains(sc.Text(), lit) {
				out = append(out, fmt.Sprintf("/workspace/%s:%d", strings.TrimPrefix(p, root+"/"), n))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// grepAll pages through a search and returns every line shown.
func grepAll(t *testing.T, w *Workspace, opts GrepOptions) (lines []string, pages int) {
	t.Helper()
	for {
		res, err := w.GrepFiles("needle", opts)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if len(res.Lines) == 0 {
			t.Fatalf("page %d is empty", pages)
		}
		for _, l := range res.Lines {
			lines = append(lines, fmt.Sprintf("%s:%d", l.Path, l.Line))
		}
		pages++
		if res.Next == nil {
			return lines, pages
		}
		if opts.After != nil && !(res.Next.Path > opts.After.Path || res.Next.Line > opts.After.Line) {
			t.Fatalf("the cursor did not move: %+v after %+v", res.Next, opts.After)
		}
		opts.After = res.Next
	}
}

func TestGrepPagesAreComplete(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			root, pol := pagingTree(t)
			want := referenceGrep(t, root, pol, "needle")
			// Control: the denied files do hold matches, which a search
			// without the policy's layers shows.
			bare := open(t, &policy.Policy{Root: root, Baseline: policy.Read}, mode.walk)
			if all, _ := grepAll(t, bare, GrepOptions{}); !slices.ContainsFunc(all, func(l string) bool {
				return strings.Contains(l, "/deny/f") && !strings.Contains(l, "/open/")
			}) || !slices.ContainsFunc(all, func(l string) bool { return strings.Contains(l, "/shut/") }) {
				t.Fatal("control: the denied files hold no match")
			}
			w := open(t, pol, mode.walk)
			first, err := w.GrepFiles("needle", GrepOptions{})
			if err != nil || first.Total != len(want) {
				t.Fatalf("total %d, want %d (%v)", first.Total, len(want), err)
			}
			for _, opts := range []GrepOptions{
				{MaxPageBytes: 1 << 30}, {MaxPageBytes: 400}, {MaxMatches: 7}, {MaxPageBytes: 1, Path: "a"}, {MaxMatches: 1, Path: "deny/open"},
			} {
				got, pages := grepAll(t, w, opts)
				want := want
				if opts.Path != "" {
					want = slices.DeleteFunc(slices.Clone(want), func(l string) bool { return !strings.HasPrefix(l, "/workspace/"+opts.Path+"/") })
				}
				if !sameLines(got, want) {
					t.Errorf("%+v: %d lines in %d pages, want %d", opts, len(got), pages, len(want))
				}
				for _, l := range got {
					if strings.Contains(l, "/deny/f") || strings.Contains(l, "/shut/") || strings.Contains(l, "z/f03") || strings.Contains(l, ".git") {
						t.Errorf("%+v: a denied path was shown: %s", opts, l)
					}
				}
			}
		})
	}
}

// TestGrepForgetsBeyondAPage: with a tiny hold bound the search keeps only
// the first files and says where to go on; paging still shows everything.
func TestGrepForgetsBeyondAPage(t *testing.T) {
	old := maxHeldLines
	maxHeldLines = 50
	t.Cleanup(func() { maxHeldLines = old })
	root, pol := pagingTree(t)
	want := referenceGrep(t, root, pol, "needle")
	w := open(t, pol, false)
	res, err := w.GrepFiles("needle", GrepOptions{MaxPageBytes: 1 << 30})
	if err != nil || res.Total != -1 || res.Next == nil || len(res.Lines) >= len(want) {
		t.Fatalf("the search did not forget: total %d, %d lines, next %v, %v", res.Total, len(res.Lines), res.Next, err)
	}
	got, _ := grepAll(t, w, GrepOptions{MaxPageBytes: 1 << 30})
	if !sameLines(got, want) {
		t.Errorf("%d lines, want %d", len(got), len(want))
	}
}

func TestGlobPagesAreComplete(t *testing.T) {
	root, pol := pagingTree(t)
	var want []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".txt") && pol.AccessAt(p) >= policy.Read {
			want = append(want, "/workspace/"+strings.TrimPrefix(p, root+"/"))
		}
		return nil
	})
	slices.Sort(want)
	w := open(t, pol, false)
	for _, opts := range []GlobOptions{{}, {MaxPageBytes: 100}, {MaxResults: 1}, {MaxResults: 13}} {
		var got []string
		for pages := 0; ; pages++ {
			res, err := w.GlobFiles("**/*.txt", opts)
			if err != nil || len(res.Paths) == 0 {
				t.Fatalf("%+v page %d: %v", opts, pages, err)
			}
			got = append(got, res.Paths...)
			if res.Next == nil {
				break
			}
			opts.After = res.Next
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: %d paths, want %d", opts, len(got), len(want))
		}
	}
}

// TestCursorOnlyHides: a cursor the caller made up — outside the scope,
// outside the root, in a denied place, garbage — never shows a path a
// search without it would not: it can only skip results.
func TestCursorOnlyHides(t *testing.T) {
	f := newFixture(t)
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	full, _ := w.GrepFiles("e", GrepOptions{NoIgnore: true})
	all := map[string]bool{}
	for _, l := range full.Lines {
		all[fmt.Sprintf("%s:%d", l.Path, l.Line)] = true
	}
	globFull, _ := w.GlobFiles("**", GlobOptions{})
	for _, c := range []Cursor{
		{Path: "../outside/sentinel"}, {Path: "/etc/passwd"}, {Path: "secret"}, {Path: "secret/key", Line: -5},
		{Path: "out/sentinel"}, {Path: ""}, {Path: "\x00"}, {Path: "src/../../outside", Line: 1 << 40}, {Path: "\xff"},
	} {
		res, _ := w.GrepFiles("e", GrepOptions{NoIgnore: true, After: &c})
		for _, l := range res.Lines {
			if k := fmt.Sprintf("%s:%d", l.Path, l.Line); !all[k] || strings.Contains(l.Text, sentinel) {
				t.Errorf("cursor %+v showed %s", c, k)
			}
		}
		g, _ := w.GlobFiles("**", GlobOptions{After: &c})
		for _, p := range g.Paths {
			if !slices.Contains(globFull.Paths, p) {
				t.Errorf("cursor %+v showed %s", c, p)
			}
		}
	}
	if _, err := w.GrepFiles("e", GrepOptions{After: &Cursor{Path: "\xff"}}); err == nil {
		t.Error("a cursor past the end found something")
	}
}

// TestGrepMatchesRipgrep: every line rg -n finds in a real tree, no more.
func TestGrepMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		if os.Getenv("RINGFENCE_REQUIRE_ALL") != "" {
			t.Fatal("rg (ripgrep) is needed")
		}
		t.Skip("no rg (ripgrep) to compare with")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimSpace(string(goroot)), "src", "net")
	pol := &policy.Policy{Root: dir, Baseline: policy.Read}
	w, err := New(pol, Options{MaxLineChars: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, pat := range []string{"ErrClosed", `func \w+Conn\(`} {
		out, err := exec.Command(rg, "-n", "-uu", "--no-ignore", "--no-heading", "-e", pat, dir).Output()
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			path, rest, _ := strings.Cut(strings.TrimPrefix(l, dir+"/"), ":")
			num, _, _ := strings.Cut(rest, ":")
			want = append(want, "/workspace/"+path+":"+num)
		}
		var got []string
		opts := GrepOptions{NoIgnore: true, MaxPageBytes: 16 << 10}
		for {
			res, err := w.GrepFiles(pat, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range res.Lines {
				got = append(got, fmt.Sprintf("%s:%d", l.Path, l.Line))
			}
			if res.Next == nil {
				break
			}
			opts.After = res.Next
		}
		if len(want) < 20 || !sameLines(got, want) {
			t.Errorf("%s: %d lines, rg %d", pat, len(got), len(want))
		}
	}
}

// sameLines: the same path:line set, each once (pages never repeat a line).
func sameLines(got, want []string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w) && len(slices.Compact(g)) == len(got)
}
