package initproc

import (
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeTree lists a directory tree given as paths ("/" suffix for dirs,
// "@" suffix for links).
func fakeTree(paths ...string) func(string) ([]Entry, error) {
	return func(dir string) ([]Entry, error) {
		var out []Entry
		for _, p := range paths {
			name := strings.TrimRight(p, "/@")
			if path.Dir(name) != dir {
				continue
			}
			out = append(out, Entry{Name: path.Base(name), Dir: strings.HasSuffix(p, "/"), Link: strings.HasSuffix(p, "@")})
		}
		return out, nil
	}
}

func TestExpandCarved(t *testing.T) {
	tree := fakeTree("/w/a/", "/w/f", "/w/l@", "/w/.git/", "/w/.git/hooks/", "/w/.git/config", "/w/.git/objects/", "/w/.git/HEAD")
	cases := []struct {
		name          string
		write, carved []string
		want          []Grant
	}{
		{"no carve-out: whole root", []string{"/w"}, nil, []Grant{{Path: "/w", Dir: true}}},
		{"carve-out elsewhere", []string{"/w"}, []string{"/x/.git"}, []Grant{{Path: "/w", Dir: true}}},
		{"root carved whole", []string{"/w"}, []string{"/w"}, nil},
		{"hooks and config", []string{"/w"}, []string{"/w/.git/hooks", "/w/.git/config"}, []Grant{
			{Path: "/w", Dir: true, OnPath: true},
			{Path: "/w/.git", Dir: true, OnPath: true},
			{Path: "/w/.git/HEAD"},
			{Path: "/w/.git/objects", Dir: true},
			{Path: "/w/a", Dir: true},
			{Path: "/w/f"},
		}},
		{"missing carve-out still withholds its parent", []string{"/w"}, []string{"/w/.claude"}, []Grant{
			{Path: "/w", Dir: true, OnPath: true},
			{Path: "/w/.git", Dir: true},
			{Path: "/w/a", Dir: true},
			{Path: "/w/f"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ExpandCarved(c.write, c.carved, tree)
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(got, func(i, j int) bool { return got[i].Path < got[j].Path })
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("grants (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzExpandCarved checks the one property that matters: no grant (other
// than an on-path directory, which gets no write right) reaches a
// carve-out, and no link is ever granted.
// A writable root of "/" still has its entries granted around a carve-out.
func TestExpandCarvedAtRoot(t *testing.T) {
	got, err := ExpandCarved([]string{"/"}, []string{"/w/.git/hooks"}, fakeTree("/w/", "/etc/", "/w/.git/", "/w/.git/hooks/", "/w/f"))
	if err != nil {
		t.Fatal(err)
	}
	granted := map[string]bool{}
	for _, g := range got {
		if !g.OnPath {
			granted[g.Path] = true
		}
	}
	if !granted["/etc"] || !granted["/w/f"] || granted["/w/.git/hooks"] {
		t.Fatalf("grants %+v", got)
	}
}

func FuzzExpandCarved(f *testing.F) {
	f.Add("a/,a/b/,a/b/c,a/d@,e", "a/b")
	f.Add("x/,x/y/,z", "x/y/q")
	f.Fuzz(func(t *testing.T, treeSpec, carveSpec string) {
		var paths []string
		seen := map[string]bool{}
		for _, p := range strings.Split(treeSpec, ",") {
			if p != "" && !strings.Contains(p, "..") && !strings.HasPrefix(p, "/") {
				// A directory cannot hold two entries of one name ("a" and
				// "a@"); such a spec describes no real tree.
				name := strings.TrimRight(p, "/@")
				if full := "/r/" + name; seen[name] || name == "" || path.Clean(full) != full {
					return // real listings hold no empty, "." or ".." names
				}
				seen[name] = true
				paths = append(paths, "/r/"+p)
			}
		}
		carved := []string{path.Clean("/r/" + carveSpec)}
		got, err := ExpandCarved([]string{"/r"}, carved, fakeTree(paths...))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			if g.OnPath {
				continue
			}
			if len(inside(g.Path, carved)) > 0 {
				t.Fatalf("grant %s reaches carve-out %s", g.Path, carved[0])
			}
			for _, p := range paths {
				if strings.TrimRight(p, "/@") == g.Path && strings.HasSuffix(p, "@") {
					t.Fatalf("link %s granted", g.Path)
				}
			}
		}
	})
}
