package initproc

import (
	"path"
	"strings"
)

// Entry is one directory entry as the carve-out expansion needs it.
type Entry struct {
	Name string
	Dir  bool
	Link bool // a symbolic link: never granted (a rule would follow it)
}

// Grant is one Landlock rule the expansion produced.
type Grant struct {
	Path string
	Dir  bool
	// OnPath marks a directory on the way to a carve-out: it is not
	// granted whole (a right on it would reach the carve-out too).
	OnPath bool
}

// ExpandCarved turns write roots with carve-outs into Landlock write rules.
// Landlock grants are unions over ancestors and cannot subtract, so a root
// holding a carve-out is granted per sibling subtree instead: every entry
// on the way to a carve-out gets no write right of its own (nothing can be
// created, removed or renamed directly in it), every other entry is
// granted whole. A carve-out that does not exist yet is protected too:
// its parent grants no right to create it. Links are never granted, since
// a rule on a link would grant its target.
func ExpandCarved(write, carved []string, list func(dir string) ([]Entry, error)) ([]Grant, error) {
	var out []Grant
	for _, w := range write {
		cs := inside(w, carved)
		if len(cs) == 0 {
			out = append(out, Grant{Path: w, Dir: true})
			continue
		}
		g, err := around(w, cs, list)
		if err != nil {
			return nil, err
		}
		out = append(out, g...)
	}
	return out, nil
}

// around grants every entry of dir except the carve-outs and the entries
// leading to them, into which it descends.
func around(dir string, carved []string, list func(string) ([]Entry, error)) ([]Grant, error) {
	for _, c := range carved {
		if c == dir {
			return nil, nil // dir itself is carved out
		}
	}
	entries, err := list(dir)
	if err != nil {
		return nil, err
	}
	out := []Grant{{Path: dir, Dir: true, OnPath: true}}
	prefix := strings.TrimSuffix(dir, "/") + "/"
	for _, e := range entries {
		p := path.Join(dir, e.Name)
		if !strings.HasPrefix(p, prefix) || p == dir || strings.Contains(e.Name, "/") {
			continue // not an entry of dir ("", ".", "..", a slash): never granted, never descended
		}
		cs := inside(p, carved)
		switch {
		case e.Link:
		case len(cs) == 0:
			out = append(out, Grant{Path: p, Dir: e.Dir})
		case e.Dir:
			g, err := around(p, cs, list)
			if err != nil {
				return nil, err
			}
			out = append(out, g...)
		}
	}
	return out, nil
}

// inside returns the carve-outs at or beneath root.
func inside(root string, carved []string) []string {
	var out []string
	for _, c := range carved {
		if c == root || root == "/" || strings.HasPrefix(c, root+"/") {
			out = append(out, c)
		}
	}
	return out
}
