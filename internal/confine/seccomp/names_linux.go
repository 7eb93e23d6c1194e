package seccomp

import (
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// fileID names an inode: a root is recognised by it, whatever path leads
// to it.
type fileID struct{ dev, ino uint64 }

// maxWalk bounds how far up npath looks for a root.
const maxWalk = 64

// rootIDs stats the NameGuard's roots once, as this mount view names
// them.
func (s *supervisor) rootIDs() map[fileID]string {
	s.rootsOnce.Do(func() {
		s.roots = map[fileID]string{}
		for _, r := range s.rules.Names.Roots {
			var st unix.Stat_t
			if unix.Stat(r, &st) == nil {
				s.roots[fileID{st.Dev, st.Ino}] = policy.Clean(r)
			}
		}
	})
	return s.roots
}

func (s *supervisor) underRoot(p string) bool {
	for _, r := range s.rules.Names.Roots {
		if policy.Contains(r, p) {
			return true
		}
	}
	return false
}

// npath is the path the name guard judges for l: its real path, or, when
// that lies under no root although a root encloses it by inode (the same
// tree reached through another mount, as Landlock's inode-based rules
// allow), the path through that root. Without it a second mount of the
// workspace would be a way around every name rule.
func (s *supervisor) npath(l *loc) string {
	if s.rules.Names == nil || l.dot || l.proc || s.underRoot(l.path) {
		return l.path
	}
	return s.viaRoot(l.dir, l.path)
}

// npathOf is npath for a path read back from a descriptor (a pinned
// inode): its directory is looked up again to walk from.
func (s *supervisor) npathOf(p string) string {
	if s.rules.Names == nil || s.underRoot(p) {
		return p
	}
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return p
	}
	dir, err := unix.Open(p[:i+1], unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return p
	}
	defer unix.Close(dir)
	return s.viaRoot(dir, p)
}

// viaRoot walks up from dir (the directory holding the last component of
// p) to a root, by inode, and renames p through it.
func (s *supervisor) viaRoot(dir int, p string) string {
	roots := s.rootIDs()
	comps := strings.Split(strings.Trim(p, "/"), "/")
	fd, err := unix.Dup(dir)
	if err != nil {
		return p
	}
	defer func() { unix.Close(fd) }()
	for up := 0; up < maxWalk && up < len(comps); up++ {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			return p
		}
		if root, ok := roots[fileID{st.Dev, st.Ino}]; ok {
			return root + "/" + strings.Join(comps[len(comps)-1-up:], "/")
		}
		next, err := unix.Openat(fd, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return p
		}
		unix.Close(fd)
		fd = next
	}
	return p
}
