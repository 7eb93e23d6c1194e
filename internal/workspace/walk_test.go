//go:build linux

package workspace

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func TestListFiles(t *testing.T) {
	f := newFixture(t)
	writeHost(t, filepath.Join(f.root, ".gitignore"), "*.log\n/build/\n")
	writeHost(t, filepath.Join(f.root, "x.log"), "")
	writeHost(t, filepath.Join(f.root, "build/out"), "")
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	res, err := w.ListFiles("", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range res.Entries {
		got[e.Path] = e.Type
	}
	want := map[string]string{"/workspace/a.txt": "file", "/workspace/src": "directory", "/workspace/out": "symlink",
		"/workspace/.gitignore": "file", "/workspace/.bashrc": "file"}
	for p, typ := range want {
		if got[p] != typ {
			t.Errorf("%s: %q, want %q", p, got[p], typ)
		}
	}
	for _, p := range []string{"/workspace/.git", "/workspace/secret", "/workspace/x.log", "/workspace/build", "/workspace/src/main.go"} {
		if _, ok := got[p]; ok {
			t.Errorf("%s listed", p)
		}
	}
	res, _ = w.ListFiles("/workspace/src", ListOptions{Depth: 3})
	if n := len(res.Entries); n != 5 { // main.go, sub, sub/deep.go, up, escape (links not entered)
		t.Errorf("depth 3: %d entries %v", n, res.Entries)
	}
	res, _ = w.ListFiles(".", ListOptions{NoIgnore: true})
	if !hasEntry(res.Entries, "/workspace/x.log") {
		t.Error("NoIgnore hid x.log")
	}
	for _, tc := range []struct {
		path string
		want outcome.Kind
	}{
		{"a.txt", outcome.NotADirectory}, {"secret", outcome.DeniedByPolicy}, {"nope", outcome.NotFound},
		{"out", outcome.PathRejected}, {"..", outcome.PathRejected},
	} {
		_, err := w.ListFiles(tc.path, ListOptions{})
		wantKind(t, tc.path, err, tc.want)
	}
}

func hasEntry(es []Entry, p string) bool {
	for _, e := range es {
		if e.Path == p {
			return true
		}
	}
	return false
}

func TestGlobFiles(t *testing.T) {
	f := newFixture(t)
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	for _, tc := range []struct {
		pattern, base string
		want          []string
		kind          outcome.Kind
	}{
		{"**/*.go", "", []string{"/workspace/src/main.go", "/workspace/src/sub/deep.go"}, outcome.OK},
		{"src/*.go", "", []string{"/workspace/src/main.go"}, outcome.OK},
		{"/workspace/src/**/deep.go", "", []string{"/workspace/src/sub/deep.go"}, outcome.OK},
		{"*.go", "src/sub", []string{"/workspace/src/sub/deep.go"}, outcome.OK},
		{"**/key", "", nil, outcome.NoMatches},        // denied subtree is not walked
		{"**/sentinel", "", nil, outcome.NoMatches},   // links are not entered
		{"**/pre-commit", "", nil, outcome.NoMatches}, // .git skipped
		{"[", "", nil, outcome.InvalidPattern},
		{"/etc/*", "", nil, outcome.PathRejected},
		{"../outside/*", "", nil, outcome.PathRejected},
		{"*", "secret", nil, outcome.DeniedByPolicy},
	} {
		res, err := w.GlobFiles(tc.pattern, GlobOptions{Base: tc.base})
		wantKind(t, tc.pattern, err, tc.kind)
		if tc.kind == outcome.OK && !reflect.DeepEqual(res.Paths, tc.want) {
			t.Errorf("%s: %v, want %v", tc.pattern, res.Paths, tc.want)
		}
	}
}

func TestGrepFiles(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			writeHost(t, filepath.Join(f.root, "long.txt"), "hello "+strings.Repeat("é", 3000)+"\n")
			writeHost(t, filepath.Join(f.root, "ign/.gitignore"), "*.tmp\n!keep.tmp\n")
			writeHost(t, filepath.Join(f.root, "ign/x.tmp"), "hello\n")
			writeHost(t, filepath.Join(f.root, "ign/keep.tmp"), "hello\n")
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			res, err := w.GrepFiles("hello", GrepOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := grepPaths(res)
			want := "/workspace/.bashrc:1 /workspace/ign/keep.tmp:1 /workspace/long.txt:1 /workspace/src/main.go:4"
			if got != want { // not .git, secret, bin.dat, x.tmp, nor through links
				t.Errorf("got %s\nwant %s", got, want)
			}
			if !limitedBy(res, "line-length") || len([]rune(res.Lines[2].Text)) != DefaultMaxLineChars || !res.Lines[2].Cut {
				t.Errorf("long line not cut and reported: %+v", res.Limited)
			}
			res, _ = w.GrepFiles(`(?i)HELLO\(`, GrepOptions{Path: "src", ContextLines: 1})
			if g := grepPaths(res); g != "/workspace/src/sub/deep.go:3 /workspace/src/sub/deep.go:4" {
				t.Errorf("context: %s", g)
			}
			res, _ = w.GrepFiles("hello", GrepOptions{CaseInsensitive: true, Glob: "*.go"})
			if g := grepPaths(res); g != "/workspace/src/main.go:4 /workspace/src/sub/deep.go:3 /workspace/src/sub/deep.go:4" {
				t.Errorf("glob+ci: %s", g)
			}
			res, _ = w.GrepFiles("hello", GrepOptions{MaxMatches: 1})
			if res.Matches != 1 || res.Next == nil || res.Total != 4 || limitedBy(res, "matches") {
				t.Errorf("max matches: %+v", res)
			}
			res, _ = w.GrepFiles("hello", GrepOptions{NoIgnore: true, Path: "ign"})
			if res.Matches != 2 {
				t.Errorf("NoIgnore: %s", grepPaths(res))
			}
			res, _ = w.GrepFiles("o", GrepOptions{Path: "a.txt"})
			if g := grepPaths(res); g != "/workspace/a.txt:1 /workspace/a.txt:2" {
				t.Errorf("one file: %s", g)
			}
			for _, tc := range []struct {
				pattern string
				opts    GrepOptions
				want    outcome.Kind
			}{
				{"nothing-here", GrepOptions{}, outcome.NoMatches},
				{"a(", GrepOptions{}, outcome.InvalidPattern},
				{"x", GrepOptions{Glob: "["}, outcome.InvalidPattern},
				{"hello", GrepOptions{Path: "secret"}, outcome.DeniedByPolicy},
				{"hello", GrepOptions{Path: "tosecret/key"}, outcome.DeniedByPolicy},
				{"x", GrepOptions{Path: "out"}, outcome.PathRejected},
				{"x", GrepOptions{Path: "nope"}, outcome.NotFound},
			} {
				_, err := w.GrepFiles(tc.pattern, tc.opts)
				wantKind(t, tc.pattern, err, tc.want)
			}
		})
	}
}

func grepPaths(res GrepResult) string {
	var out []string
	for _, l := range res.Lines {
		out = append(out, fmt.Sprintf("%s:%d", l.Path, l.Line))
	}
	return strings.Join(out, " ")
}

func limitedBy(res GrepResult, bound string) bool {
	for _, o := range res.Limited {
		if o.Kind == outcome.ScopeLimited && o.Bound == bound {
			return true
		}
	}
	return false
}

func TestWalkBounds(t *testing.T) {
	f := newFixture(t)
	for i := range 50 {
		writeHost(t, filepath.Join(f.root, "many", fmt.Sprintf("f%02d.txt", i)), "needle\n")
	}
	writeHost(t, filepath.Join(f.root, "huge.txt"), strings.Repeat("needle\n", 200))
	w, err := New(policyFor(f.root, policy.WorkspaceWrite), Options{MaxEntries: 30, MaxFileBytes: 1000, MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, _ := w.GrepFiles("needle", GrepOptions{})
	if !limitedBy(res, "entries") || !limitedBy(res, "file-size") {
		t.Errorf("grep bounds: %+v", res.Limited)
	}
	w.opts.MaxEntries = DefaultMaxEntries
	w.opts.MaxReadBytes = 100
	res, _ = w.GrepFiles("needle", GrepOptions{Path: "many"})
	if !limitedBy(res, "bytes") {
		t.Errorf("bytes bound: %+v", res.Limited)
	}
	g, _ := w.GlobFiles("many/*.txt", GlobOptions{MaxResults: 10})
	if len(g.Paths) != 10 || len(g.Limited) != 0 || g.Next == nil || g.Next.Path != "many/f09.txt" || g.Total != 50 {
		t.Errorf("glob results bound: %d %+v %+v", len(g.Paths), g.Limited, g.Next)
	}
}

func TestIgnoreRules(t *testing.T) {
	s := (*ignoreSet)(nil).with("", parseIgnore([]byte("# c\n*.o\n/top.txt\nbuild/\ndocs/**/gen\n!keep.o\n\\#hash\n")))
	s = s.with("sub", parseIgnore([]byte("local\n!top.txt\n")))
	for _, tc := range []struct {
		rel  string
		dir  bool
		want bool
	}{
		{"a.o", false, true}, {"x/y/a.o", false, true}, {"keep.o", false, false},
		{"top.txt", false, true}, {"x/top.txt", false, false}, {"sub/top.txt", false, false},
		{"build", true, true}, {"build", false, false}, {"x/build", true, true},
		{"docs/a/b/gen", false, true}, {"docs/gen", false, true}, {"#hash", false, true},
		{"sub/local", false, true}, {"local", false, false}, {"main.go", false, false},
	} {
		if got := s.ignored(tc.rel, tc.dir); got != tc.want {
			t.Errorf("%s (dir %v): %v, want %v", tc.rel, tc.dir, got, tc.want)
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	for pattern, want := range map[string]string{
		"hello": "hello", `func \w+Reader\(`: "Reader(", "a|b": "", "(?i)abc": "", "x+yz": "yz", "(abc)+": "abc",
		"a*": "", `\bfoo\b`: "foo",
	} {
		m, err := compileMatcher(pattern, false)
		if err != nil || string(m.lit) != want {
			t.Errorf("%s: %q %v, want %q", pattern, m.lit, err, want)
		}
	}
}
