package main

import (
	"os"
	"path/filepath"

	"github.com/ringfence/ringfence/policy"
)

// configTargets are the paths guardConfigDir guards for the config dir
// dir: dir as named, where it really is, and where the user policy file
// in it really is. ringfence follows links to read both (loadPolicySources
// reads policy.toml through any link, as dotfile managers link config
// files, and GNU stow links a whole directory), so a command that could
// write the link's target — a dotfiles repository that is the workspace —
// could otherwise replace the user's own, fully trusted, policy.
func configTargets(dir string) []string {
	out := []string{dir}
	for _, p := range []string{realPath(dir, 0), realPath(filepath.Join(dir, "policy.toml"), 0)} {
		p = policy.Clean(p)
		covered := false
		for _, o := range out {
			covered = covered || policy.Contains(o, p)
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}

// maxLinkHops bounds how many links realPath follows (as the kernel's 40).
const maxLinkHops = 40

// realPath is where p really is: its links resolved as far as they exist,
// a dangling link followed to the name it points at, and the part that
// does not exist yet joined on — a name a command could create there is
// as much the config dir as one that exists.
func realPath(p string, hops int) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if hops >= maxLinkHops {
		return p
	}
	if fi, err := os.Lstat(p); err == nil {
		if fi.Mode()&os.ModeSymlink == 0 {
			return p // there, yet not resolvable (a loop above it, no permission): as named
		}
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		return realPath(t, hops+1)
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(realPath(parent, hops), filepath.Base(p))
}
