package seccomp

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// metaNames maps this architecture's numbers of the calls meta_linux.go
// and dgram_linux.go answer back to their names.
var metaNames = sync.OnceValue(func() map[int32]string {
	m := map[int32]string{}
	table := targets[runtime.GOARCH].table
	names := append([]string{"chmod", "fchmod", "fchmodat", "fchmodat2", "sendmsg", "sendmmsg"}, ownerCalls...)
	names = append(append(names, timeCalls...), xattrCalls...)
	for _, name := range names {
		if nr, ok := table[name]; ok {
			m[int32(nr)] = name
		}
	}
	return m
})

// metaCall answers a metadata or sendmsg notification; ok is false for any
// other call.
func (s *supervisor) metaCall(t *target, n notif) (resp notifResp, ok bool) {
	name, ok := metaNames()[n.nr]
	if !ok {
		return notifResp{}, false
	}
	var v int64
	var errno unix.Errno
	switch name {
	case "sendmsg":
		v, errno = s.sendmsg(t, n)
	case "sendmmsg":
		v, errno = s.sendmmsg(t, n)
	default:
		errno = s.meta(t, name, n.args)
	}
	if errno != 0 {
		return answerErrno(n.id, errno), true
	}
	return answerValue(n.id, v), true
}

// object is the file a metadata call changes: a descriptor the supervisor
// holds (O_PATH when it was named by path, else the target's own open
// file, shared), opened once, so the check and the change meet one inode.
type object struct {
	fd     int
	byPath bool // fd is O_PATH: change it through /proc/self/fd/N or AT_EMPTY_PATH
}

func (o object) close() { unix.Close(o.fd) }

// meta performs one metadata call for the target, after the checks.
func (s *supervisor) meta(t *target, name string, a [6]uint64) unix.Errno {
	const cwd = int32(unix.AT_FDCWD)
	var (
		obj   object
		errno unix.Errno
	)
	// Where the object is, and how the call names it.
	switch name {
	case "fchmod", "fchown", "fsetxattr", "fremovexattr":
		obj, errno = t.fdObject(int32(a[0]), false)
	case "chmod", "chown", "setxattr", "removexattr", "utime", "utimes":
		obj, errno = t.pathObject(cwd, a[0], 0)
	case "lchown", "lsetxattr", "lremovexattr":
		obj, errno = t.pathObject(cwd, a[0], unix.AT_SYMLINK_NOFOLLOW)
	case "fchmodat":
		obj, errno = t.pathObject(int32(a[0]), a[1], 0)
	case "fchmodat2":
		obj, errno = t.pathObject(int32(a[0]), a[1], a[3])
	case "fchownat":
		obj, errno = t.pathObject(int32(a[0]), a[1], a[4])
	case "futimesat":
		obj, errno = t.pathOrFd(int32(a[0]), a[1], 0)
	case "utimensat":
		obj, errno = t.pathOrFd(int32(a[0]), a[1], a[3])
	default:
		return unix.ENOSYS
	}
	if errno != 0 {
		return errno
	}
	defer obj.close()
	if errno := s.metaAllowed(obj); errno != 0 {
		return errno
	}
	switch name {
	case "chmod", "fchmod":
		return s.chmod(obj, uint32(a[1]))
	case "fchmodat", "fchmodat2":
		return s.chmod(obj, uint32(a[2]))
	case "chown", "lchown", "fchown":
		return s.chown(obj, a[1], a[2])
	case "fchownat":
		return s.chown(obj, a[2], a[3])
	case "utime", "utimes", "futimesat", "utimensat":
		return s.utimes(t, obj, name, a)
	}
	return s.xattr(t, obj, name, a)
}

// metaAllowed applies Rules.MetaWritable to the object's real path (as
// /proc/self/fd names the descriptor the supervisor holds). An object on
// procfs is refused outright: procfs refuses mode and owner changes
// anyway, and a /proc path resolved by the supervisor could name its own
// entries. An unlinked file (O_TMPFILE, or deleted) with no name left
// changes nothing anyone can reach and is allowed; one deleted here but
// linked elsewhere is refused.
func (s *supervisor) metaAllowed(obj object) unix.Errno {
	if isProc(obj.fd) {
		return unix.EPERM
	}
	if s.rules.MetaWritable == nil {
		return 0
	}
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(obj.fd), buf)
	if err != nil || n >= len(buf) {
		return unix.EPERM
	}
	path := string(buf[:n])
	if trimmed, deleted := strings.CutSuffix(path, " (deleted)"); deleted {
		var st unix.Stat_t
		if unix.Fstat(obj.fd, &st) == nil && st.Nlink == 0 {
			return 0
		}
		path = trimmed + "\x00" // never a clean path: refused below
	}
	if !obj.byPath && ownPipeOrSocket(path) {
		return 0
	}
	if !strings.HasPrefix(path, "/") || strings.ContainsRune(path, 0) || !s.rules.MetaWritable(path) {
		return unix.EPERM
	}
	return 0
}

// ownPipeOrSocket reports whether a descriptor's link names a pipe or a
// socket ("pipe:[N]", "socket:[N]"): objects with no name on any
// filesystem, whose mode only the holders of a descriptor see (a server
// may fchmod its socket before bind). Anonymous inodes are not among them:
// the kernel shares one inode between all of them.
func ownPipeOrSocket(link string) bool {
	for _, kind := range []string{"pipe:[", "socket:["} {
		if rest, ok := strings.CutPrefix(link, kind); ok {
			digits, ok := strings.CutSuffix(rest, "]")
			return ok && digits != "" && strings.Trim(digits, "0123456789") == ""
		}
	}
	return false
}

// fdObject takes the target's descriptor fd (EBADF as the kernel says).
// emptyPath says the call named it with AT_EMPTY_PATH, which reaches an
// O_PATH descriptor too; fchmod, fchown and f*xattr on one fail with
// EBADF, and so do ours, which share its open file description.
func (t *target) fdObject(fd int32, emptyPath bool) (object, unix.Errno) {
	dup, errno := t.getfd(int(fd))
	if errno != 0 {
		return object{}, errno
	}
	return object{fd: dup, byPath: emptyPath}, 0
}

// pathOrFd is the utimensat/futimesat form: a NULL path names dirfd's
// own file (flags must then be 0 for utimensat, as the kernel says).
func (t *target) pathOrFd(dirfd int32, addr, flags uint64) (object, unix.Errno) {
	if addr == 0 {
		if flags&^uint64(unix.AT_EMPTY_PATH) != 0 {
			return object{}, unix.EINVAL
		}
		return t.fdObject(dirfd, true)
	}
	return t.pathObject(dirfd, addr, flags)
}

// pathObject opens, once and with O_PATH, what a path argument names for
// the target: from its working directory or dirfd, following a final
// symlink unless AT_SYMLINK_NOFOLLOW; "" names dirfd itself with
// AT_EMPTY_PATH.
func (t *target) pathObject(dirfd int32, addr, flags uint64) (object, unix.Errno) {
	if flags&^uint64(unix.AT_SYMLINK_NOFOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return object{}, unix.EINVAL
	}
	path, errno := t.readPath(addr)
	if errno != 0 {
		return object{}, errno
	}
	if path == "" {
		if flags&unix.AT_EMPTY_PATH == 0 {
			return object{}, unix.ENOENT
		}
		fd, errno := t.base(dirfd) // AT_FDCWD: the working directory itself
		return object{fd: fd, byPath: true}, errno
	}
	start := unix.AT_FDCWD
	if !strings.HasPrefix(path, "/") {
		fd, errno := t.base(dirfd)
		if errno != 0 {
			return object{}, errno
		}
		defer unix.Close(fd)
		start = fd
	}
	open := unix.O_PATH | unix.O_CLOEXEC
	if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
		open |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat(start, t.procSelf(path), open, 0)
	if err != nil {
		return object{}, errnoOf(err, unix.EACCES)
	}
	return object{fd: fd, byPath: true}, 0
}

// magic names an O_PATH descriptor as a path that reaches its inode.
func magic(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// chmod refuses S_ISUID always and S_ISGID on anything but a directory
// (the filter refuses the first already; this is the second wall), then
// changes the mode.
func (s *supervisor) chmod(obj object, mode uint32) unix.Errno {
	mode &= 0o7777
	if mode&unix.S_ISUID != 0 {
		return unix.EPERM
	}
	var st unix.Stat_t
	if err := unix.Fstat(obj.fd, &st); err != nil {
		return errnoOf(err, unix.EBADF)
	}
	if mode&unix.S_ISGID != 0 && st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return unix.EPERM
	}
	return s.asSelf(func() unix.Errno {
		switch {
		case !obj.byPath:
			return callErr(unix.Fchmod(obj.fd, mode))
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			return unix.EOPNOTSUPP // a symlink's mode cannot be changed
		}
		return callErr(unix.Chmod(magic(obj.fd), mode))
	})
}

// chown changes owner and group (-1 keeps one). The kernel decides who
// may: without CAP_CHOWN, only the group, and only to one of the caller's.
func (s *supervisor) chown(obj object, uid, gid uint64) unix.Errno {
	u, g := int(int32(uid)), int(int32(gid))
	return s.asSelf(func() unix.Errno {
		if !obj.byPath {
			return callErr(unix.Fchown(obj.fd, u, g))
		}
		return callErr(unix.Fchownat(obj.fd, "", u, g, unix.AT_EMPTY_PATH))
	})
}

// utimes reads the times in whichever form the call used and sets them
// with utimensat on the object (AT_EMPTY_PATH reaches a symlink too).
func (s *supervisor) utimes(t *target, obj object, name string, a [6]uint64) unix.Errno {
	var addr uint64
	switch name {
	case "utime", "utimes":
		addr = a[1]
	default:
		addr = a[2]
	}
	var ts *[2]unix.Timespec
	if addr != 0 {
		b, errno := t.read(addr, 32)
		if name == "utime" {
			b, errno = t.read(addr, 16)
		}
		if errno != 0 {
			return errno
		}
		v, errno := parseTimes(name, b)
		if errno != 0 {
			return errno
		}
		ts = &v
	}
	return s.asSelf(func() unix.Errno {
		empty := [1]byte{}
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(obj.fd), uintptr(unsafe.Pointer(&empty[0])),
			uintptr(unsafe.Pointer(ts)), unix.AT_EMPTY_PATH, 0, 0)
		return e
	})
}

// parseTimes converts utime's utimbuf, utimes' and futimesat's timeval
// pair, or utimensat's timespec pair, to a timespec pair, refusing what
// the kernel refuses.
func parseTimes(name string, b []byte) ([2]unix.Timespec, unix.Errno) {
	word := func(i int) int64 { return int64(nativeUint64(b[8*i:])) }
	var ts [2]unix.Timespec
	switch name {
	case "utime": // struct utimbuf { time_t actime, modtime; }
		ts[0], ts[1] = unix.Timespec{Sec: word(0)}, unix.Timespec{Sec: word(1)}
	case "utimes", "futimesat": // struct timeval[2]
		for i := range 2 {
			usec := word(2*i + 1)
			if usec < 0 || usec >= 1_000_000 {
				return ts, unix.EINVAL
			}
			ts[i] = unix.Timespec{Sec: word(2 * i), Nsec: usec * 1000}
		}
	default: // struct timespec[2], UTIME_NOW and UTIME_OMIT as given
		ts[0], ts[1] = unix.Timespec{Sec: word(0), Nsec: word(1)}, unix.Timespec{Sec: word(2), Nsec: word(3)}
	}
	return ts, 0
}

func nativeUint64(b []byte) uint64 { return *(*uint64)(unsafe.Pointer(&b[0])) }

// Limits the kernel puts on extended attributes (include/uapi/linux/limits.h).
const (
	xattrNameMax = 255
	xattrSizeMax = 65536
)

// xattr sets or removes an extended attribute. Capabilities decide the
// namespaces (security.capability needs CAP_SETFCAP, trusted.* and other
// security.* CAP_SYS_ADMIN, none of which the command holds).
func (s *supervisor) xattr(t *target, obj object, name string, a [6]uint64) unix.Errno {
	attr, errno := t.readPath(a[1])
	if errno != 0 {
		return errno
	}
	if attr == "" || len(attr) > xattrNameMax {
		return unix.ERANGE
	}
	var st unix.Stat_t
	if err := unix.Fstat(obj.fd, &st); err != nil {
		return errnoOf(err, unix.EBADF)
	}
	if obj.byPath && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		// l*xattr on a symlink: the user namespace is not allowed there,
		// and the others need capabilities the command lacks.
		return unix.EPERM
	}
	remove := strings.Contains(name, "remove")
	var value []byte
	flags := 0
	if !remove {
		if a[3] > xattrSizeMax {
			return unix.E2BIG
		}
		if value, errno = t.read(a[2], int(a[3])); errno != 0 {
			return errno
		}
		flags = int(int32(a[4]))
	}
	return s.asSelf(func() unix.Errno {
		var err error
		switch {
		case remove && obj.byPath:
			err = unix.Removexattr(magic(obj.fd), attr)
		case remove:
			err = unix.Fremovexattr(obj.fd, attr)
		case obj.byPath:
			err = unix.Setxattr(magic(obj.fd), attr, value, flags)
		default:
			err = unix.Fsetxattr(obj.fd, attr, value, flags)
		}
		return callErr(err)
	})
}

// callErr is the errno of a call the supervisor made for the target: 0 on
// success, EPERM for an error without one.
func callErr(err error) unix.Errno {
	if err == nil {
		return 0
	}
	return errnoOf(err, unix.EPERM)
}
