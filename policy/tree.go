package policy

import "strings"

// Tree answers AccessAt for a walk one directory at a time: a directory's
// view knows the last layer containing it and the layers strictly beneath
// it, so the access of each of its entries is decided without cleaning
// the entry's path against every layer. Where no layer lies beneath a
// directory (almost everywhere in a real tree) every entry below it has
// the directory's own access, in O(1); a directory with layers beneath
// groups them by their next path component once, so an entry costs one
// map lookup. Build a Tree per walk: it copies the layers it is built
// from, and a policy changed later is not seen.
//
// The answers are AccessAt's exactly (FuzzTreeMatchesAccessAt walks random
// layer sets, in any order, both ways).
type Tree struct {
	baseline Access
	paths    []string // Clean(Layers[i].Path)
	access   []Access
}

// Tree snapshots p's layers for a walk.
func (p *Policy) Tree() *Tree {
	t := &Tree{baseline: p.Baseline, paths: make([]string, len(p.Layers)), access: make([]Access, len(p.Layers))}
	for i, l := range p.Layers {
		t.paths[i], t.access[i] = Clean(l.Path), l.Access
	}
	return t
}

// TreeDir is one directory's view. It is never changed after it is made,
// so views are safe for concurrent use: a walker's goroutines share them
// (every directory without a layer beneath shares its parent's).
type TreeDir struct {
	t      *Tree
	path   string // clean; only kept while layers lie beneath
	access Access
	last   int   // the last layer containing path, -1 for none
	under  []int // layers strictly beneath path, in applied order
	open   bool  // some layer beneath grants at least Read
	kids   map[string][]int
	leaf   *TreeDir // the view shared by every child without a layer
	denied bool     // a name no directory can hold: fail closed
}

// Dir is the view of the directory at path (any form; it is cleaned). It
// costs one pass over the layers: use it for a walk's base, then Child.
func (t *Tree) Dir(path string) *TreeDir {
	path = Clean(path)
	d := &TreeDir{t: t, path: path, last: -1}
	for i, p := range t.paths {
		switch {
		case within(p, path):
			d.last = i
		case within(path, p):
			d.under = append(d.under, i)
		}
	}
	d.finish()
	return d
}

func (d *TreeDir) finish() {
	d.access = d.t.baseline
	if d.last >= 0 {
		d.access = d.t.access[d.last]
	}
	if len(d.under) == 0 {
		d.path = "" // never needed again: nothing beneath can differ
		return
	}
	d.leaf = &TreeDir{t: d.t, access: d.access, last: d.last}
	d.kids = make(map[string][]int, len(d.under))
	skip := len(d.path) + 1
	if d.path == "/" {
		skip = 1
	}
	for _, i := range d.under {
		rest := d.t.paths[i][skip:]
		name, _, _ := strings.Cut(rest, "/")
		d.kids[name] = append(d.kids[name], i)
		if d.t.access[i] >= Read {
			d.open = true
		}
	}
}

// Access is the access in force at the directory itself.
func (d *TreeDir) Access() Access { return d.access }

// Beneath reports whether some layer strictly beneath the directory grants
// at least Read: a walk must enter an unreadable directory that holds a
// readable carve-out.
func (d *TreeDir) Beneath() bool { return d.open }

// Child is the view of the entry name directly inside the directory: its
// Access is AccessAt of the joined path. name must be one directory entry
// ("", ".", ".." and names holding "/" are no entry): anything else gets a
// view that denies everything, so a caller's mistake fails closed.
func (d *TreeDir) Child(name string) *TreeDir {
	if d.denied {
		return d
	}
	if name == "" || name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 {
		return &TreeDir{t: d.t, access: Deny, last: -1, denied: true}
	}
	if len(d.under) == 0 {
		return d // nothing beneath: every entry has this directory's access
	}
	idx := d.kids[name]
	if len(idx) == 0 {
		return d.leaf
	}
	path := d.path + "/" + name
	if d.path == "/" {
		path = "/" + name
	}
	c := &TreeDir{t: d.t, path: path, last: d.last}
	for _, i := range idx {
		if d.t.paths[i] == path {
			c.last = max(c.last, i)
		} else {
			c.under = append(c.under, i)
		}
	}
	c.finish()
	return c
}
