package seccomp

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// loc is where a supervised call creates, links or renames a name: a
// directory the supervisor opened itself (O_PATH) and one final component.
// Every later step works relative to dir, so what the target does to its
// memory, its symlinks or its directories after the lookup changes nothing.
type loc struct {
	dir  int    // owned O_PATH directory descriptor
	name string // final component, with a trailing "/" if the call had one
	path string // the directory's real path joined with the final component
	dot  bool   // the name is "." or "..": it names an existing directory
	proc bool   // dir is on procfs: the name may be a magic link (fd/N)
}

func (l *loc) close() {
	if l != nil && l.dir >= 0 {
		unix.Close(l.dir)
	}
}

// readPath copies a NUL-terminated path out of the target's memory, once,
// a page at a time so that a string ending near an unmapped page is read
// as the kernel would read it.
func (t *target) readPath(addr uint64) (string, unix.Errno) {
	if addr == 0 {
		return "", unix.EFAULT
	}
	var out []byte
	for len(out) < unix.PathMax {
		n := min(4096-int(addr%4096), unix.PathMax-len(out))
		b, errno := t.read(addr, n)
		if errno != 0 {
			return "", errno
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return string(append(out, b[:i]...)), 0
		}
		out = append(out, b...)
		addr += uint64(n)
	}
	return "", unix.ENAMETOOLONG
}

// base returns the directory a relative path starts from, as the target
// sees it: its working directory for AT_FDCWD, else its descriptor dirfd.
// The caller closes the result.
func (t *target) base(dirfd int32) (int, unix.Errno) {
	if dirfd == unix.AT_FDCWD {
		return t.openCwd()
	}
	return t.getfd(int(dirfd))
}

// resolve looks path up once from the target's point of view: it opens the
// parent directory (following every symlink on the way, as the kernel
// would, but not the final component) and reads back its real path.
func (t *target) resolve(dirfd int32, path string) (*loc, unix.Errno) {
	if path == "" {
		return nil, unix.ENOENT
	}
	if len(path) >= unix.PathMax {
		return nil, unix.ENAMETOOLONG
	}
	start := unix.AT_FDCWD // for an absolute path: the root we share
	if !strings.HasPrefix(path, "/") {
		fd, errno := t.base(dirfd)
		if errno != 0 {
			return nil, errno
		}
		defer unix.Close(fd)
		start = fd
	}
	return t.resolveAt(start, path)
}

// resolveAt is resolve from an open directory (or AT_FDCWD for absolute
// paths).
func (t *target) resolveAt(start int, path string) (*loc, unix.Errno) {
	path = t.procSelf(path)
	trimmed := strings.TrimRight(path, "/")
	slash := trimmed != path
	parent, name := ".", trimmed
	if i := strings.LastIndexByte(trimmed, '/'); i >= 0 {
		parent, name = trimmed[:i+1], trimmed[i+1:]
	}
	if trimmed == "" { // "/", "//": the root itself
		parent, name = "/", "."
	}
	dir, err := unix.Openat(start, parent, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, errnoOf(err, unix.EACCES)
	}
	l := &loc{dir: dir, name: name, dot: name == "." || name == ".."}
	if slash {
		l.name += "/"
	}
	real, errno := fdPath(dir)
	if errno == 0 && isProc(dir) {
		l.proc = true
		real, errno = t.reopenProc(l, real)
	}
	if errno != 0 {
		l.close()
		return nil, errno
	}
	l.path = strings.TrimSuffix(real, "/") + "/" + name
	return l, 0
}

// fdPath reads back the path of an open directory. A deleted directory
// takes no new names (ENOENT, as the kernel says); one outside our root
// reads back as a relative "(unreachable)" form and is refused.
func fdPath(fd int) (string, unix.Errno) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	switch {
	case err != nil || n >= len(buf):
		return "", unix.EACCES
	case strings.HasSuffix(string(buf[:n]), " (deleted)"):
		return "", unix.ENOENT
	case buf[0] != '/':
		return "", unix.EACCES
	}
	return string(buf[:n]), 0
}

// maxLinks is the kernel's limit on symlinks followed in one lookup.
const maxLinks = 40

// follow resolves the final component of l as open(O_CREAT) without
// O_EXCL or O_NOFOLLOW does: while it is a symlink, the lookup starts
// again from its target. It returns the last location, whose name is not a
// symlink (or does not exist). The caller then opens with O_NOFOLLOW, so a
// symlink put there after this check fails with ELOOP instead of being
// followed unchecked. On procfs it stops: a name there is a magic link
// (fd/N, cwd) that only the kernel can follow, to a file that exists (no
// name is created through one), so the caller lets the kernel follow it
// from the directory already opened.
func (t *target) follow(l *loc) (*loc, unix.Errno) {
	for hops := 0; ; hops++ {
		if l.dot || l.proc || strings.HasSuffix(l.name, "/") {
			return l, 0
		}
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(l.dir, l.name, buf)
		if err != nil { // not a symlink, or missing: the name to open
			return l, 0
		}
		if hops >= maxLinks || n >= len(buf) || n == 0 {
			l.close()
			return nil, unix.ELOOP
		}
		next, errno := t.resolveAt(l.dir, string(buf[:n]))
		l.close()
		if errno != 0 {
			return nil, errno
		}
		l = next
	}
}

// isProc reports whether an open directory is on procfs.
func isProc(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}

// procSelf rewrites /proc/self, /proc/thread-self and /proc/<a thread of
// the supervisor> at the start of a path to the target's own entry: looked
// up by the supervisor, they would name the supervisor (`> /dev/stdout`,
// `> /proc/self/cwd/x`).
func (t *target) procSelf(path string) string {
	id := t.pid
	rest, ok := strings.CutPrefix(path, "/proc/")
	if !ok {
		return path
	}
	first, after, slash := strings.Cut(rest, "/")
	switch {
	case first == "self" || ours(first):
		first = id
	case first == "thread-self":
		first = id + "/task/" + id
	default:
		return path
	}
	if slash {
		return "/proc/" + first + "/" + after
	}
	return "/proc/" + first
}

// ours reports whether pid names this process or one of its threads.
func ours(pid string) bool {
	if pid == "" || strings.Trim(pid, "0123456789") != "" {
		return false
	}
	if self, err := os.Readlink("/proc/self"); err == nil && pid == self {
		return true // this process, as /proc names it (a host /proc numbers it otherwise)
	}
	_, err := os.Lstat("/proc/self/task/" + pid)
	return err == nil
}

// reopenProc vets a parent directory on procfs. Under /proc/<pid>, the
// supervisor could reach what the command may not (the init's own
// descriptors and memory: the init is not dumpable; other processes the
// command may not trace), so: an entry of the supervisor's own (reached
// through a symlink such as /dev/fd -> /proc/self/fd) is taken to mean the
// target's own, and l.dir is reopened there; an entry of another process
// than the target's is refused (EACCES). Other procfs directories
// (/proc/sys, …) are as reachable for the one as for the other.
func (t *target) reopenProc(l *loc, real string) (string, unix.Errno) {
	rest, _ := strings.CutPrefix(real, "/proc/")
	first, after, _ := strings.Cut(rest, "/")
	if first == "" || strings.Trim(first, "0123456789") != "" {
		return real, 0
	}
	id := t.pid
	if !ours(first) {
		if !t.owns(first) {
			return "", unix.EACCES
		}
		return real, 0
	}
	path := "/proc/" + id
	if r, ok := strings.CutPrefix(after, "task/"); ok {
		_, sub, _ := strings.Cut(r, "/")
		after = "task/" + id + "/" + sub
	}
	if after = strings.TrimSuffix(after, "/"); after != "" {
		path += "/" + after
	}
	dir, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", errnoOf(err, unix.EACCES)
	}
	unix.Close(l.dir)
	l.dir = dir
	return fdPath(dir)
}

// owns reports whether pid is the target thread, its process, or another
// thread of that process.
func (t *target) owns(pid string) bool {
	id := t.pid
	if pid == id {
		return true
	}
	if _, err := os.Lstat("/proc/" + id + "/task/" + pid); err == nil {
		return true
	}
	_, err := os.Lstat("/proc/" + pid + "/task/" + id)
	return err == nil
}
