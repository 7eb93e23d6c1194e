//go:build linux

package workspace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The kernel side of the workspace: every call that names a path does so
// relative to a descriptor already known to be beneath the root.

const maxLinks = 40 // the kernel's own limit on links followed in one lookup

// sysStat is what the operations need from fstat, portable in shape.
type sysStat struct {
	mode  fs.FileMode
	size  int64
	nlink uint64
	dev   uint64
	ino   uint64
	mtime int64
}

func toStat(st *unix.Stat_t) sysStat {
	return sysStat{
		mode:  modeOf(st.Mode),
		size:  st.Size,
		nlink: uint64(st.Nlink),
		dev:   uint64(st.Dev),
		ino:   st.Ino,
		mtime: st.Mtim.Nano(),
	}
}

func modeOf(m uint32) fs.FileMode {
	perm := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return perm | fs.ModeDir
	case unix.S_IFLNK:
		return perm | fs.ModeSymlink
	case unix.S_IFIFO:
		return perm | fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return perm | fs.ModeSocket
	case unix.S_IFCHR:
		return perm | fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return perm | fs.ModeDevice
	}
	return perm
}

func sysFstat(fd int) (sysStat, error) {
	var st unix.Stat_t
	err := retry(func() error { return unix.Fstat(fd, &st) })
	return toStat(&st), err
}

// sysLstatAt stats name in dirfd without following a final link.
func sysLstatAt(dirfd int, name string) (sysStat, error) {
	var st unix.Stat_t
	err := retry(func() error { return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	return toStat(&st), err
}

func sysClose(fd int) { _ = unix.Close(fd) }

// sysOpenRoot opens the workspace root itself. Links in the root's own
// host path are the deployment's business and are followed.
func sysOpenRoot(path string) (int, error) {
	return openat(unix.AT_FDCWD, path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// resolver holds the root open. noOpenat2 is set once the kernel said
// ENOSYS; tests set it to keep the component walk exercised.
type resolver struct {
	rootfd    int
	noOpenat2 atomic.Bool
}

// resolve opens rel (clean, relative, "" = the root) beneath the root as an
// O_PATH descriptor and returns the symlink-free path it really names. With
// follow, links that stay beneath the root are followed; without it, any
// link anywhere in rel refuses the lookup (ELOOP).
func (r *resolver) resolve(rel string, follow bool) (int, string, error) {
	if rel == "" {
		fd, err := unix.Dup(r.rootfd)
		return fd, "", err
	}
	if !r.noOpenat2.Load() {
		fd, real, err := r.resolveOpenat2(rel, follow)
		if !errors.Is(err, unix.ENOSYS) {
			return fd, real, err
		}
		r.noOpenat2.Store(true)
	}
	return walkResolve(r.rootfd, rel, follow)
}

const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

func (r *resolver) resolveOpenat2(rel string, follow bool) (int, string, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: beneath | unix.RESOLVE_NO_SYMLINKS}
	fd, err := openat2(r.rootfd, rel, &how)
	if err == nil || !follow || !errors.Is(err, unix.ELOOP) {
		return fd, rel, err
	}
	// A link is on the way. The kernel follows it only while it stays
	// beneath the root; the real path then comes from the descriptor
	// itself, so the policy is checked where the data really is.
	how.Resolve = beneath
	if fd, err = openat2(r.rootfd, rel, &how); err != nil {
		return -1, "", err
	}
	real, err := r.relOf(fd)
	if err != nil {
		sysClose(fd)
		return walkResolve(r.rootfd, rel, follow) // no /proc: walk ourselves
	}
	return fd, real, nil
}

// relOf is the path of fd relative to the root, read from /proc.
func (r *resolver) relOf(fd int) (string, error) {
	root, err := fdPath(r.rootfd)
	if err != nil {
		return "", err
	}
	p, err := fdPath(fd)
	if err != nil {
		return "", err
	}
	if p == root {
		return "", nil
	}
	prefix := strings.TrimSuffix(root, "/") + "/"
	if !strings.HasPrefix(p, prefix) || strings.HasSuffix(p, " (deleted)") {
		return "", unix.EXDEV
	}
	return p[len(prefix):], nil
}

func fdPath(fd int) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil {
		return "", err
	}
	if n == len(buf) {
		return "", unix.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}

// walkResolve is the lookup for kernels without openat2: one component at a
// time, each opened O_NOFOLLOW relative to the descriptor of its parent, so
// no path the kernel resolves is ever longer than one name. Links are read
// and interpreted here: an absolute target or a ".." above the root refuses
// the lookup (EXDEV), as RESOLVE_BENEATH does; /proc's magic links read as
// absolute paths or as names that do not exist, so they are never followed.
func walkResolve(rootfd int, rel string, follow bool) (fd int, real string, err error) {
	type frame struct {
		fd   int
		name string
	}
	stack := []frame{}
	defer func() {
		for _, f := range stack {
			sysClose(f.fd)
		}
	}()
	top := func() int {
		if len(stack) == 0 {
			return rootfd
		}
		return stack[len(stack)-1].fd
	}
	comps := strings.Split(rel, "/")
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return -1, "", unix.EXDEV
			}
			sysClose(stack[len(stack)-1].fd)
			stack = stack[:len(stack)-1]
			continue
		}
		nfd, err := openat(top(), c, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, "", err
		}
		st, err := sysFstat(nfd)
		if err != nil {
			sysClose(nfd)
			return -1, "", err
		}
		if st.mode&fs.ModeSymlink != 0 {
			target, err := readlinkFd(nfd)
			sysClose(nfd)
			links++
			switch {
			case err != nil:
				return -1, "", err
			case !follow || links > maxLinks:
				return -1, "", unix.ELOOP
			case strings.HasPrefix(target, "/"):
				return -1, "", unix.EXDEV
			}
			comps = append(strings.Split(target, "/"), comps...)
			continue
		}
		if len(comps) > 0 && !st.mode.IsDir() && hasMore(comps) {
			sysClose(nfd)
			return -1, "", unix.ENOTDIR
		}
		stack = append(stack, frame{nfd, c})
	}
	if len(stack) == 0 {
		fd, err := unix.Dup(rootfd)
		return fd, "", err
	}
	names := make([]string, len(stack))
	for i, f := range stack {
		names[i] = f.name
	}
	fd = stack[len(stack)-1].fd
	stack = stack[:len(stack)-1]
	return fd, strings.Join(names, "/"), nil
}

// hasMore reports whether comps still names something other than ".".
func hasMore(comps []string) bool {
	for _, c := range comps {
		if c != "" && c != "." {
			return true
		}
	}
	return false
}

func readlinkFd(fd int) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(fd, "", buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// sysOpenRead reopens a resolved, symlink-free rel for reading. O_NONBLOCK
// keeps a fifo swapped in at the last moment from blocking the call, and
// the caller compares device and inode with what it checked.
func (r *resolver) sysOpenRead(rel string) (int, error) {
	return r.openNoFollow(rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC)
}

// sysOpenDirRead opens a symlink-free directory rel for reading entries.
func (r *resolver) sysOpenDirRead(rel string) (int, error) {
	return r.openNoFollow(rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
}

func (r *resolver) openNoFollow(rel string, flags int) (int, error) {
	if rel == "" {
		return openat(r.rootfd, ".", flags, 0)
	}
	if !r.noOpenat2.Load() {
		how := unix.OpenHow{Flags: uint64(flags), Resolve: beneath | unix.RESOLVE_NO_SYMLINKS}
		fd, err := openat2(r.rootfd, rel, &how)
		if !errors.Is(err, unix.ENOSYS) {
			return fd, err
		}
		r.noOpenat2.Store(true)
	}
	dir, base := splitRel(rel)
	dfd, _, err := walkResolve(r.rootfd, dir, false)
	if err != nil {
		return -1, err
	}
	defer sysClose(dfd)
	return openat(dfd, base, flags|unix.O_NOFOLLOW, 0)
}

// sysOpenChild opens one entry of an open directory for reading, never
// following a link and never blocking on a fifo.
func sysOpenChild(dirfd int, name string) (int, error) {
	return openat(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// sysReadDir lists an open directory with getdents64 into a pooled
// buffer: no dup, no *os.File, no fcntl per directory (a walk lists
// thousands). An entry whose type the filesystem does not report
// (DT_UNKNOWN) is typed with fstatat(AT_SYMLINK_NOFOLLOW), never by
// following it. The descriptor stays the caller's, at its end.
func sysReadDir(fd int) ([]dirent, error) {
	bp := direntPool.Get().(*[]byte)
	defer direntPool.Put(bp)
	buf := *bp
	var out []dirent
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, unix.EIO
			}
			typ, name := b[18], b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := dirent{name: string(name)}
			switch typ {
			case unix.DT_REG:
			case unix.DT_DIR:
				e.typ = fs.ModeDir
			case unix.DT_LNK:
				e.typ = fs.ModeSymlink
			case unix.DT_FIFO:
				e.typ = fs.ModeNamedPipe
			case unix.DT_SOCK:
				e.typ = fs.ModeSocket
			case unix.DT_CHR:
				e.typ = fs.ModeDevice | fs.ModeCharDevice
			case unix.DT_BLK:
				e.typ = fs.ModeDevice
			default: // DT_UNKNOWN: ask, without following a link
				var st unix.Stat_t
				if err := unix.Fstatat(fd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // gone since it was listed
				}
				e.typ = modeOf(st.Mode).Type()
			}
			out = append(out, e)
		}
	}
}

var direntPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// sysCreateTemp makes a new file in dirfd that nobody else can have open.
func sysCreateTemp(dirfd int, name string) (int, error) {
	return openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
}

func sysMkdirAt(dirfd int, name string) error {
	return retry(func() error { return unix.Mkdirat(dirfd, name, 0o755) })
}

func sysRenameAt(dirfd int, from, to string) error {
	return retry(func() error { return unix.Renameat(dirfd, from, dirfd, to) })
}

func sysUnlinkAt(dirfd int, name string) { _ = unix.Unlinkat(dirfd, name, 0) }

func sysFchmod(fd int, mode fs.FileMode) error {
	return retry(func() error { return unix.Fchmod(fd, uint32(mode.Perm())) })
}

func sysFsync(fd int) error { return retry(func() error { return unix.Fsync(fd) }) }

// sysSyncDir makes a rename in dirfd durable.
func sysSyncDir(dirfd int) error {
	fd, err := openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer sysClose(fd)
	return sysFsync(fd)
}

func sysWrite(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// sysRead fills b as far as the file allows; it returns how much it read.
func sysRead(fd int, b []byte) (int, error) {
	total := 0
	for total < len(b) {
		n, err := unix.Read(fd, b[total:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return total, err
		}
		if n == 0 {
			break
		}
		total += n
	}
	return total, nil
}

func readOnce(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			if n < 0 {
				n = 0
			}
			return n, err
		}
	}
}

func openat(dirfd int, name string, flags int, mode uint32) (int, error) {
	var fd int
	err := retry(func() (err error) { fd, err = unix.Openat(dirfd, name, flags, mode); return })
	return fd, err
}

func openat2(dirfd int, name string, how *unix.OpenHow) (int, error) {
	var fd int
	// EAGAIN: RESOLVE_BENEATH saw a concurrent rename and refused to guess.
	for i := 0; ; i++ {
		var err error
		fd, err = unix.Openat2(dirfd, name, how)
		if (err == unix.EAGAIN && i < 64) || err == unix.EINTR {
			continue
		}
		return fd, err
	}
}

func retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// errno classification, so the portable code never names a unix constant.
func isNotExist(err error) bool { return errors.Is(err, unix.ENOENT) }
func isEscape(err error) bool   { return errors.Is(err, unix.EXDEV) }
func isLoop(err error) bool     { return errors.Is(err, unix.ELOOP) }
func isNotDir(err error) bool   { return errors.Is(err, unix.ENOTDIR) }
func isExist(err error) bool    { return errors.Is(err, unix.EEXIST) }
func isHostPerm(err error) bool { return errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) }
func isNameLong(err error) bool { return errors.Is(err, unix.ENAMETOOLONG) }

const supported = true

var errLoop error = unix.ELOOP

// sysOpenDirAt opens the directory name in dirfd for reading entries,
// never following a link in its place.
func sysOpenDirAt(dirfd int, name string) (int, error) {
	return openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// sysReadNames reads the names in an open directory from its start, at
// most max; more reports that there were others.
func sysReadNames(fd int, max int) (names []string, more bool, err error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, false, err
	}
	f := os.NewFile(uintptr(dup), "dir")
	defer f.Close()
	if _, err := f.Seek(0, 0); err != nil {
		return nil, false, err
	}
	names, err = f.Readdirnames(max + 1)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if len(names) > max {
		return names[:max], true, err
	}
	return names, false, err
}

// sysUnlinkAtErr removes name in dirfd (a directory with dir), never
// following a link.
func sysUnlinkAtErr(dirfd int, name string, dir bool) error {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	return retry(func() error { return unix.Unlinkat(dirfd, name, flags) })
}

func isNotEmpty(err error) bool { return errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) }
