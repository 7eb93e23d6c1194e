package bwrap_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

// fuzzPaths are the paths fuzzed policies are made of; the "m" ones do
// not exist on the fake host. "/a/b/f" is a file.
var fuzzPaths = []string{"/a", "/a/b", "/a/b/c", "/a/b/f", "/a/m", "/a/b/m", "/x", "/x/y", "/x/m", "/a/b/c/d"}

var fuzzTree = tree("/a/b/c/d/", "/a/b/f", "/a/l@", "/x/y/", "/opt/ringfence", "/dev/null", "/usr/", "/tmp/", "/proc/")

var fuzzHost = fuzzTree.Stat

// FuzzPlan checks two invariants on any policy over fuzzPaths:
//   - nothing is left on the host: every mount destination exists on the
//     host, or is created inside a tmpfs the sandbox owns;
//   - the view matches the policy at every existing path: write exactly
//     where the policy writes, readable exactly where it reads;
//   - with a ListFunc (expand), no read-only or denied path is left
//     creatable: Enforcement reports no missing path.
//
// Pins are always offered (as the provider opens them), so the invariants
// hold with them: a pin never widens access nor covers a carve-out.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{0, 2, 1, 1, 2, 0, 3, 2, 1}, false, false)
	f.Add([]byte{6, 0, 1, 2, 4, 1, 7, 0}, true, false)
	f.Add([]byte{0, 2, 4, 1, 5, 0}, false, true)
	f.Add([]byte{0, 2, 9, 0}, false, false) // a deep carve-out: pins on the way to it
	f.Fuzz(func(t *testing.T, data []byte, denyBaseline, expand bool) {
		pol := fuzzPolicy(data, denyBaseline)
		o := opts()
		o.Stat = fuzzHost
		if expand {
			o.List = fuzzTree.List
		}
		// Pins as the provider opens them: every pin directory that
		// exists as a directory.
		o.Pins = map[string]int{}
		for i, d := range bwrap.PinDirs(pol) {
			if k, _ := fuzzHost(d); k == bwrap.Dir {
				o.Pins[d] = 7 + i
			}
		}
		spec, err := bwrap.Plan(pol, confine.Request{Argv: []string{"true"}}, o)
		if err != nil {
			t.Fatal(err)
		}
		args := spec.Args
		if expand && hasReason(spec.Enforcement, "does not exist yet") {
			t.Errorf("expanded, yet a missing path is unprotected: %v (layers %+v)", spec.Enforcement.Reasons, pol.Layers)
		}
		ms := mountsWithSource(args)
		if !denyBaseline && (len(ms) == 0 || ms[0] != (mnt{"--ro-bind", "/", "/"})) {
			t.Fatalf("baseline read without --ro-bind / / first: %v", ms)
		}
		for i, m := range ms {
			if k, _ := fuzzHost(m.dst); k == bwrap.Missing && !insideTmpfs(ms[:i], m.dst, denyBaseline) {
				t.Errorf("mount %v creates %s on the host (policy %+v)", m, m.dst, pol.Layers)
			}
		}
		for _, p := range fuzzPaths {
			if k, _ := fuzzHost(p); k == bwrap.Missing {
				continue
			}
			if got, want := viewAccess(ms, p, denyBaseline), pol.AccessAt(p); got != want && !expanded(ms, p, want) {
				t.Errorf("at %s the view gives %d, the policy %d (layers %+v, mounts %v)", p, got, want, pol.Layers, ms)
			}
		}
	})
}

func fuzzPolicy(data []byte, denyBaseline bool) *policy.Policy {
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/a", Baseline: policy.Read}
	if denyBaseline {
		pol.Baseline = policy.Deny
	}
	for i := 0; i+1 < len(data) && len(pol.Layers) < 8; i += 2 {
		pol.Layers = append(pol.Layers, policy.Layer{Path: fuzzPaths[int(data[i])%len(fuzzPaths)],
			Access: policy.Access(data[i+1] % 3), Origin: policy.Origin(data[i+1] / 3 % 5)})
	}
	policy.SortLayers(pol.Layers)
	return pol
}

type mnt struct{ flag, src, dst string }

func mountsWithSource(args []string) []mnt {
	var out []mnt
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		switch args[i] {
		case "--bind", "--ro-bind", "--symlink":
			out = append(out, mnt{args[i], args[i+1], args[i+2]})
			i += 2
		case "--bind-fd": // a pin: the directory itself, writable
			out = append(out, mnt{"--bind", "fd:" + args[i+1], args[i+2]})
			i += 2
		case "--tmpfs", "--dev", "--proc":
			out = append(out, mnt{args[i], "", args[i+1]})
			i++
		}
	}
	return out
}

// innermost is the last mount whose destination contains p, or nil.
func innermost(ms []mnt, p string) *mnt {
	var in *mnt
	for i := range ms {
		if ms[i].flag != "--symlink" && policy.Contains(ms[i].dst, p) {
			in = &ms[i]
		}
	}
	return in
}

func insideTmpfs(ms []mnt, p string, denyBaseline bool) bool {
	in := innermost(ms, p)
	if in == nil {
		return denyBaseline // bwrap's own root tmpfs
	}
	return in.flag != "--bind" && in.flag != "--ro-bind"
}

// expanded: p is a writable directory turned into a read-only tmpfs with
// its entries bound back: its contents are writable, itself is not.
func expanded(ms []mnt, p string, want policy.Access) bool {
	in := innermost(ms, p)
	return want == policy.Write && in != nil && in.flag == "--tmpfs" && in.dst == p
}

func viewAccess(ms []mnt, p string, denyBaseline bool) policy.Access {
	in := innermost(ms, p)
	switch {
	case in == nil && denyBaseline:
		return policy.Deny
	case in == nil:
		return policy.Read
	case in.flag == "--bind":
		return policy.Write
	case in.flag == "--ro-bind" && in.src != "/dev/null":
		return policy.Read
	}
	return policy.Deny
}
