package bwrap

import (
	"strconv"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// remap shows the workspace root at its mount path: every mount
// destination at or under from is rewritten under to. The zero remap
// changes nothing.
type remap struct{ from, to string }

// remapFor is the remap req asks for, when this view can honour it: a
// mount path other than the root, and a host listing to build the root
// from (bwrap cannot make a mountpoint in a read-only bind of the host's
// root, so the root becomes a tmpfs of per-entry binds).
func remapFor(p *policy.Policy, req confine.Request, opts ArgOptions) remap {
	if req.MountPath == "" || req.MountPath == p.Root || rootLister(opts) == nil || p.Root == "" {
		return remap{}
	}
	return remap{from: p.Root, to: req.MountPath}
}

func rootLister(opts ArgOptions) ListFunc {
	if opts.ListRoot != nil {
		return opts.ListRoot
	}
	return opts.List
}

func (m remap) active() bool { return m.from != "" }

func (m remap) view(p string) string {
	if !m.active() || !policy.Contains(m.from, p) {
		return p
	}
	return m.to + p[len(m.from):]
}

// destinations maps the destination of every mount option in args (the
// view's own options only: binds, tmpfs, remounts, links, dirs).
func (m remap) destinations(args []string) []string {
	if !m.active() {
		return args
	}
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case "--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try", "--symlink":
			if i+2 < len(out) {
				out[i+2] = m.view(out[i+2])
			}
			i += 2
		case "--tmpfs", "--dev", "--proc", "--remount-ro", "--dir", "--mqueue":
			if i+1 < len(out) {
				out[i+1] = m.view(out[i+1])
			}
			i++
		case "--size", "--perms", "--chmod":
			i++
		}
	}
	return out
}

// synthRoot binds every top-level host entry read-only into bwrap's own
// root (a tmpfs), links recreated as links, so that a mountpoint missing
// on the host (the mount path) can be made; the root is remounted
// read-only at the end.
func (v *view) synthRoot(list ListFunc) error {
	entries, err := list("/")
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := "/" + e.Name
		if e.Kind == Link {
			v.args = append(v.args, "--symlink", e.Target, p)
			continue
		}
		v.args = append(v.args, "--ro-bind", p, p)
	}
	v.applied = append(v.applied, applied{"/", hostRO})
	v.remount = append(v.remount, "/")
	return nil
}

// sized puts a --size option before a tmpfs when a size is set.
func sized(size int64, args ...string) []string {
	if size <= 0 {
		return args
	}
	return append([]string{"--size", strconv.FormatInt(size, 10)}, args...)
}

// homeSteps are the view's steps for the home fallback (bwrap 0.8 has no
// overlay): ringfence's state masked, the workspace's cache writable.
func homeSteps(p *policy.Policy, h *confine.Home) []step {
	if h == nil || h.Cache == "" || p.AccessAt(h.Cache) == policy.Deny {
		return nil
	}
	var out []step
	for _, d := range h.Hide {
		out = append(out, step{path: policy.Clean(d), access: policy.Deny})
	}
	return append(out, step{path: policy.Clean(h.Cache), access: policy.Write})
}

// homeEnv points the toolchain caches at the private cache and says so.
func homeEnv(req confine.Request) ([]string, []string) {
	if req.Home == nil || req.Home.Cache == "" {
		return req.Env, nil
	}
	env, set := confine.CacheEnv(req.Env, req.Home.Cache)
	r := "bwrap " + "0.8 has no overlay, so no private home layer: home stays read-only"
	if len(set) > 0 {
		r += "; " + joinNames(set) + " point at a private cache directory of this workspace"
	}
	return env, []string{r}
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// viewRoots are the writable roots where the command sees them, for the
// guards that match the command's paths. A workspace writable through a
// broader root (a write entry for a parent of it) has no root of its own
// and the broader root is not moved with it, so the mount path is added.
func viewRoots(p *policy.Policy, roots []string, m remap) []string {
	out := make([]string, 0, len(roots)+1)
	own := false
	for _, r := range roots {
		out = append(out, m.view(r))
		own = own || r == p.Root
	}
	if m.active() && !own && p.AccessAt(p.Root) == policy.Write {
		out = append(out, m.to)
	}
	return out
}
