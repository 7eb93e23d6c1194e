package seccomp

import (
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// writeFlags are the open flags that write to what is already there.
const writeFlags = unix.O_WRONLY | unix.O_RDWR | unix.O_TRUNC

// named asks Rules.Names whether a may happen at l (vConfig counts as
// refused: only renameNamed knows how to satisfy it).
func (s *supervisor) named(l *loc, a act) bool {
	return l.dot || l.proc || s.rules.Names.decide(s.npath(l), a) == vAllow
}

// mayOpen decides an open at l (after its final symlinks were followed):
// O_CREAT makes a name, the write flags write what is there. A name on
// procfs (a magic link such as /proc/self/fd/N) is decided by openProc,
// once the kernel has said where it leads.
func (s *supervisor) mayOpen(l *loc, flags int) bool {
	if flags&unix.O_CREAT != 0 && (!s.mayCreate(l, true) || !s.named(l, actFile)) {
		return false
	}
	if flags&writeFlags != 0 && !l.dot && !l.proc && s.rules.Protected(l.path) {
		return false
	}
	return flags&writeFlags == 0 || s.named(l, actWrite)
}

// realName reads back where an open descriptor leads: ok is false when it
// has no name in the tree (a pipe, a socket, an unlinked file), which no
// name rule can protect.
func realName(fd int) (string, bool) {
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n >= len(buf) || n == 0 || buf[0] != '/' || strings.HasSuffix(string(buf[:n]), " (deleted)") {
		return "", false
	}
	return string(buf[:n]), true
}

// writable reports whether what fd leads to may be written.
func (s *supervisor) writable(fd int) bool {
	p, ok := realName(fd)
	return !ok || (!s.rules.Protected(p) && s.rules.Names.decide(s.npathOf(p), actWrite) == vAllow)
}

// openProc opens a magic link for writing: first with O_PATH, which lets
// the kernel follow it without touching the file (no O_TRUNC yet), then,
// if where it leads may be written, reopens that very inode through
// /proc/self/fd with the caller's flags. O_CREAT cannot make a name
// through a magic link (its target exists), so it is dropped.
func (s *supervisor) openProc(n notif, l *loc, flags int) notifResp {
	fd := -1
	errno := s.perform(func() error {
		pin, err := unix.Openat(l.dir, l.name, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(pin)
		if !s.writable(pin) {
			return errRefused
		}
		fd, err = unix.Open("/proc/self/fd/"+strconv.Itoa(pin), flags&^unix.O_CREAT|unix.O_CLOEXEC, 0)
		return err
	})
	if errno != 0 {
		return answerErrno(n.id, errno)
	}
	return s.sendFd(n.id, fd, flags&unix.O_CLOEXEC != 0) // closes fd
}

// truncate is truncate(2) by path, performed on an inode the supervisor
// pinned and checked: the path is looked up once (final symlinks followed
// as the kernel would), opened O_PATH without following again, and the
// pinned inode is truncated through /proc/self/fd.
func (s *supervisor) truncate(t *target, addr uint64, length int64) unix.Errno {
	l, errno := t.lookup(unix.AT_FDCWD, addr)
	if errno != 0 {
		return errno
	}
	if l, errno = t.follow(l); errno != 0 {
		return errno
	}
	defer l.close()
	if l.dot {
		return unix.EISDIR
	}
	if length < 0 {
		return unix.EINVAL
	}
	return s.perform(func() error {
		flags := unix.O_PATH | unix.O_CLOEXEC
		if !l.proc {
			flags |= unix.O_NOFOLLOW
		}
		pin, err := unix.Openat(l.dir, l.name, flags, 0)
		if err != nil {
			return err
		}
		defer unix.Close(pin)
		var st unix.Stat_t
		if err := unix.Fstat(pin, &st); err != nil {
			return err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
		case unix.S_IFDIR:
			return unix.EISDIR
		default:
			return unix.EINVAL
		}
		if !s.writable(pin) {
			return errRefused
		}
		return unix.Truncate("/proc/self/fd/"+strconv.Itoa(pin), length)
	})
}

// linkSource pins the source of a link: the caller's descriptor for
// AT_EMPTY_PATH, else the path (its final symlink followed only with
// AT_SYMLINK_FOLLOW, as linkat does), and refuses a protected one — a
// second name for a protected file would be a writable alias of it.
func (s *supervisor) linkSource(t *target, olddir int32, oldPath string, flags uint64) (int, unix.Errno) {
	var pin int
	if oldPath == "" && flags&unix.AT_EMPTY_PATH != 0 { // an open file, e.g. O_TMPFILE
		fd, errno := t.base(olddir)
		if errno != 0 {
			return -1, errno
		}
		pin = fd
	} else {
		ol, errno := t.resolve(olddir, oldPath)
		if errno != 0 {
			return -1, errno
		}
		if flags&unix.AT_SYMLINK_FOLLOW != 0 {
			if ol, errno = t.follow(ol); errno != 0 {
				return -1, errno
			}
		}
		defer ol.close()
		if ol.dot {
			return -1, unix.EPERM // a directory: linkat says EPERM
		}
		open := unix.O_PATH | unix.O_CLOEXEC
		if !ol.proc {
			open |= unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(ol.dir, ol.name, open, 0)
		if err != nil {
			return -1, errnoOf(err, unix.EACCES)
		}
		pin = fd
		if !ol.proc && (s.rules.Protected(ol.path) || !s.named(ol, actSource)) {
			unix.Close(pin)
			return -1, errRefused
		}
	}
	if p, ok := realName(pin); ok && (s.rules.Protected(p) || s.rules.Names.decide(s.npathOf(p), actSource) != vAllow) {
		unix.Close(pin)
		return -1, errRefused
	}
	var st unix.Stat_t
	if err := unix.Fstat(pin, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFDIR {
		unix.Close(pin)
		return -1, unix.EPERM
	}
	return pin, 0
}

// renameNamed is rename under Rules.Names. The source is pinned (O_PATH,
// not followed) to learn what moves: a file, or something that brings a
// tree or points elsewhere (a directory, a symlink). A git config lands
// only through installConfig. When the verdict depended on the source
// being a file, the destination is checked afterwards to hold the pinned
// inode; anything swapped in meanwhile is moved back and refused.
func (s *supervisor) renameNamed(ol, nl *loc, flags uint64) unix.Errno {
	return s.perform(func() error {
		pin, err := unix.Openat(ol.dir, ol.name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(pin)
		var st unix.Stat_t
		if err := unix.Fstat(pin, &st); err != nil {
			return err
		}
		file := st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Mode&unix.S_IFMT != unix.S_IFLNK
		a := actTree
		if file {
			a = actFile
		}
		g := s.rules.Names
		op, np := s.npath(ol), s.npath(nl)
		if g.decide(op, actSource) != vAllow {
			return errRefused
		}
		exchange := flags&unix.RENAME_EXCHANGE != 0
		// A tree made under node_modules holds names the guard never
		// judged: it may move within such trees, never out of them.
		if (!file && g.exempt(op) && !g.exempt(np)) || (exchange && g.exempt(op) != g.exempt(np)) {
			return errRefused
		}
		// A git directory kept in a modules/ or worktrees/ tree holds a
		// HEAD: moved out, it is a bare repository whose config no name
		// rule holds any more.
		if !file && g.match(op).Kind == policy.NameGitDir && g.match(np).Kind != policy.NameGitDir {
			return errRefused
		}
		if exchange && (g.decide(op, actTree) != vAllow || g.decide(np, actSource) != vAllow) {
			return errRefused // what the destination held moves to the source
		}
		switch g.decide(np, a) {
		case vRefuse:
			return errRefused
		case vConfig, vPointer:
			if flags != 0 || st.Mode&unix.S_IFMT != unix.S_IFREG {
				return errRefused
			}
			check, limit := checkGitConfig, maxGitConfig
			if g.decide(np, a) == vPointer {
				check, limit = func(b []byte) error { return s.checkPointer(nl.dir, nl.path, b) }, maxPointer
			}
			return installChecked(ol, nl, pin, &st, limit, check)
		}
		if err := unix.Renameat2(ol.dir, ol.name, nl.dir, nl.name, uint(flags)); err != nil {
			return err
		}
		if !file || exchange || g.decide(np, actTree) == vAllow {
			return nil
		}
		var now unix.Stat_t
		if unix.Fstatat(nl.dir, nl.name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == st.Dev && now.Ino == st.Ino {
			return nil
		}
		_ = unix.Renameat2(nl.dir, nl.name, ol.dir, ol.name, unix.RENAME_NOREPLACE)
		return errRefused
	})
}

// installChecked puts a git config or pointer in place by content: it
// reads the pinned source (a regular file) once, checks it, writes a
// fresh file with that content beside the destination and renames it
// into place, then removes the source if it is still the pinned file. The
// installed inode is one the command never opened, so a descriptor it
// kept on the source (config.lock) cannot change the file afterwards.
func installChecked(ol, nl *loc, pin int, st *unix.Stat_t, limit int, check func([]byte) error) error {
	src, err := unix.Open("/proc/self/fd/"+strconv.Itoa(pin), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(src), "config")
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	f.Close()
	if err != nil {
		return unix.EIO
	}
	if len(data) > limit || check(data) != nil {
		return errRefused
	}
	if err := writeFresh(nl.dir, nl.name, data, st.Mode&0o666); err != nil {
		return err
	}
	var now unix.Stat_t
	if unix.Fstatat(ol.dir, ol.name, &now, unix.AT_SYMLINK_NOFOLLOW) == nil && now.Dev == st.Dev && now.Ino == st.Ino {
		_ = unix.Unlinkat(ol.dir, ol.name, 0)
	}
	return nil
}

// writeFresh writes data to a new file beside name in dir and renames it
// over name: readers see the old file or the whole new one.
func writeFresh(dir int, name string, data []byte, mode uint32) error {
	var rnd [8]byte
	if !random(rnd[:]) {
		return unix.EIO
	}
	tmp := ".ringfence-config-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(fd), tmp)
	_, werr := out.Write(data)
	if cerr := out.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(dir, tmp, dir, name)
	}
	if werr != nil {
		_ = unix.Unlinkat(dir, tmp, 0)
		return errnoOf(werr, unix.EIO)
	}
	return nil
}

// remove is unlink, unlinkat and rmdir (Options.GuardRemove): a
// Rules.Protected path, or anything beneath one, is not removed (EROFS,
// as a read-only mount answers). Names are not consulted: deleting a
// protected name plants nothing, and `rm -rf` of a cloned repository is
// ordinary work.
func (s *supervisor) remove(t *target, dirfd int32, addr, flags uint64) unix.Errno {
	if flags&^uint64(unix.AT_REMOVEDIR) != 0 {
		return unix.EINVAL
	}
	l, errno := t.lookup(dirfd, addr)
	if errno != 0 {
		return errno
	}
	defer l.close()
	if !l.dot && s.rules.Protected(l.path) {
		return errRefused
	}
	return s.perform(func() error { return unix.Unlinkat(l.dir, l.name, int(flags)) })
}

// random fills b from getrandom(2), as crypto/rand does on Linux, without
// linking crypto/rand: this package is linked into the sandbox init, which
// is carried in every binary and copied into memory on every run, and
// crypto/rand brings the FIPS module, math/big and the rest of crypto with
// it (internal/confine/initimage). The name only has to be unguessable
// among the directory's other entries; O_EXCL refuses a collision anyway.
func random(b []byte) bool {
	for len(b) > 0 {
		n, err := unix.Getrandom(b, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return false
		}
		b = b[n:]
	}
	return true
}
