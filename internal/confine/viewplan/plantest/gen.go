// Package plantest generates resolved policies for the view plan's tests:
// the invariant fuzz of viewplan and the equality goldens that hold each
// backend's translation of the plan to what it produced before the plan
// existed. Paths come from a small set of names so that layers nest, repeat
// at several depths and fall under the workspace, /tmp and home.
package plantest

import (
	"math/rand"
	"strings"

	"github.com/ringfence/ringfence/policy"
)

var names = []string{"a", "b", ".git", "hooks", "config", ".bashrc", "tmp", "w", "home", "u", ".ssh", "key"}

var roots = []string{"/w", "/tmp/w", "/home/u", "/home/u/w", "/a/b/w"}

// Policy is a random resolved policy drawn from r: sorted, clean layers,
// at most one per path, as policy.Resolve makes them.
func Policy(r *rand.Rand) *policy.Policy {
	p := &policy.Policy{Mode: policy.Mode(r.Intn(2)), Baseline: policy.Read}
	if r.Intn(4) == 0 {
		p.Baseline = policy.Deny
	}
	p.Root = roots[r.Intn(len(roots))]
	p.Cwd = p.Root
	byPath := map[string]policy.Layer{}
	add := func(path string, a policy.Access, o policy.Origin) {
		byPath[path] = policy.Layer{Path: path, Access: a, Origin: o}
	}
	if p.Mode == policy.WorkspaceWrite {
		add(p.Root, policy.Write, policy.FromMode)
		if r.Intn(2) == 0 {
			p.TempDir = "/tmp/rt"
			add(p.TempDir, policy.Write, policy.FromMode)
		}
		for _, sub := range []string{"/.git/hooks", "/.git/config", "/.bashrc", "/.ssh/key", "/a/.git/config"} {
			if r.Intn(3) != 0 {
				add(p.Root+sub, policy.Read, policy.FromProtected)
			}
		}
	} else if p.Baseline == policy.Deny {
		add(p.Root, policy.Read, policy.FromMode)
	}
	for n := r.Intn(7); n > 0; n-- {
		var parts []string
		base := ""
		if r.Intn(2) == 0 {
			base = p.Root
		}
		for d := r.Intn(4); d >= 0; d-- {
			parts = append(parts, names[r.Intn(len(names))])
		}
		path := base + "/" + strings.Join(parts, "/")
		add(path, policy.Access(r.Intn(3)), policy.Origin(2+r.Intn(3)))
	}
	for _, l := range byPath {
		p.Layers = append(p.Layers, l)
	}
	policy.SortLayers(p.Layers)
	p.Network.Mode = policy.NetworkMode(r.Intn(4))
	if r.Intn(3) == 0 {
		p.UnixSockets = []string{"/run/x.sock"}
	}
	if r.Intn(3) == 0 {
		p.Names.Extra = []string{".envrc"}
	}
	p.Names.GitWritable = r.Intn(4) == 0
	return p
}

// FromBytes is Policy seeded from fuzz input.
func FromBytes(b []byte) *policy.Policy {
	var seed int64
	for _, c := range b {
		seed = seed*131 + int64(c)
	}
	return Policy(rand.New(rand.NewSource(seed)))
}

// Kind is a deterministic host fact for path: 0 missing, 1 directory,
// 2 file — what the goldens' injected stat reports, so that some carve-outs
// exist and some do not.
func Kind(path string) int {
	h := uint32(2166136261)
	for i := 0; i < len(path); i++ {
		h = (h ^ uint32(path[i])) * 16777619
	}
	switch {
	case strings.HasSuffix(path, "/config") || strings.HasSuffix(path, "/key") || strings.HasSuffix(path, ".bashrc"):
		if h%3 == 0 {
			return 0
		}
		return 2
	case h%4 == 0:
		return 0
	}
	return 1
}

// Entries lists dir as the goldens' injected listing does: a few names of
// the set, as directories, files or (one) a link.
func Entries(dir string) []Entry {
	var out []Entry
	for i, n := range names[:8] {
		path := dir + "/" + n
		if dir == "/" {
			path = "/" + n
		}
		switch k := Kind(path); {
		case i == 7:
			out = append(out, Entry{Name: n, Link: true, Target: "/etc"})
		case k != 0:
			out = append(out, Entry{Name: n, Dir: k == 1})
		}
	}
	return out
}

// Entry is one listed name.
type Entry struct {
	Name   string
	Dir    bool
	Link   bool
	Target string
}
