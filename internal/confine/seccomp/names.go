package seccomp

import (
	"strings"

	"github.com/ringfence/ringfence/policy"
)

// NameGuard protects by name at every depth under the writable roots
// (policy.MatchProtectedName): set as Rules.Names, the supervisor asks it
// about every creation, write-open, truncation, link and rename it
// performs. Roots are absolute and symlink-free, as the view names them.
type NameGuard struct {
	Roots []string
	Names policy.NameProtection
}

// act is what a supervised call does at a path.
type act int

const (
	// actMkdir makes an empty directory: allowed at any name (git makes
	// .git and hooks), what lands inside is checked again.
	actMkdir act = iota
	// actFile makes a name for something without descendants: a new
	// regular file, FIFO or socket, a hard link, a renamed file.
	actFile
	// actTree makes a name for something that can bring a tree or point
	// elsewhere: a symlink, a renamed directory.
	actTree
	// actWrite opens what is at the path for writing, or truncates it.
	actWrite
	// actSource takes the path away or aliases it: the source of a rename
	// or a hard link.
	actSource
)

// verdict is the guard's answer for one path.
type verdict int

const (
	vAllow verdict = iota
	vRefuse
	// vConfig: a git config file may land here only by renaming a regular
	// file whose content passes checkGitConfig (see installConfig).
	vConfig
	// vPointer: a ".git" file or a commondir may be written here only
	// with content that points into a git directory the guard holds
	// (see openPointer, checkPointer).
	vPointer
)

// match finds the strongest name rule for path under any root: a
// protected match over a git-directory position over none.
func (g *NameGuard) match(path string) policy.NameMatch {
	var best policy.NameMatch
	for _, root := range g.Roots {
		if !policy.Contains(root, path) {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(policy.Clean(path), policy.Clean(root)), "/")
		m := g.Names.Match(rel)
		if m.Protected() {
			return m
		}
		if m.Kind != policy.NameNone {
			best = m
		}
	}
	return best
}

// exempt reports whether what lies beneath path is left alone by name
// (policy.UnderNodeModules) under some root. A tree made there may not be
// carried out of it whole — by a rename, an exchange or a symlink
// pointing in — or the names it holds would land where they are held.
func (g *NameGuard) exempt(path string) bool {
	if g == nil {
		return false
	}
	for _, root := range g.Roots {
		if policy.Contains(root, path) && policy.UnderNodeModules(strings.TrimPrefix(strings.TrimPrefix(policy.Clean(path), policy.Clean(root)), "/")) {
			return true
		}
	}
	return false
}

// decide answers what a at path may do.
func (g *NameGuard) decide(path string, a act) verdict {
	if g == nil || a == actMkdir {
		return vAllow
	}
	m := g.match(path)
	sample := m.Kind == policy.NameGitHooks && !m.Self && !strings.Contains(m.Rest, "/") &&
		strings.HasSuffix(m.Rest, ".sample") // git never runs these
	switch {
	case m.Kind == policy.NameNone:
		return vAllow
	case m.Kind == policy.NameGitDir:
		// A .git file is a "gitdir:" pointer; a symlink or renamed
		// directory anywhere on the way to a nested git directory brings
		// hooks and config the guard never saw. Files inside the
		// modules/worktrees trees (HEAD, index, refs) are ordinary.
		switch {
		case a == actTree || (m.Self && m.Name == ".git" && a == actSource):
			return vRefuse
		case m.Self && m.Name == ".git":
			return vPointer
		}
		return vAllow
	case sample && a != actTree:
		return vAllow
	case m.Kind == policy.NameGitConfig && m.Self && a == actFile:
		return vConfig
	case m.Kind == policy.NameGitPointer && m.Self && (a == actFile || a == actWrite):
		return vPointer
	}
	return vRefuse
}

// openMask is the flag bits that send an open to the supervisor.
func openMask(opts Options) uint32 {
	if !opts.GuardCreate {
		return 0
	}
	if opts.GuardWrite {
		return oCreat | oWronly | oRdwr | oTrunc
	}
	return oCreat
}
