package seccomp

import (
	"runtime"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// errRefused is what a creation at a protected path fails with: EROFS,
// what the read-only mounts over existing protected paths already answer,
// so a command sees one error whether or not the path existed.
const errRefused = unix.EROFS

// errContinue is no errno: it asks create to let the kernel carry out the
// call (the racy test-only mode, see supervise).
const errContinue = unix.Errno(1 << 20)

// nrNames maps this architecture's syscall numbers back to the names the
// filter uses (arm64 has no legacy open, mkdir, … at all). Built on the
// first notification, not at package initialisation, which every
// ringfence process pays (cmd/ringfence's TestPackageInitIsLazy).
var nrNames = sync.OnceValue(func() map[int32]string {
	m := map[int32]string{}
	for name, nr := range targets[runtime.GOARCH].table {
		m[int32(nr)] = name
	}
	return m
})

// create answers a notification of Options.GuardCreate: it reads each path
// once, resolves it once, checks it and performs the call itself.
func (s *supervisor) create(t *target, n notif) notifResp {
	s.umask.Do(func() { unix.Umask(0) }) // see createMode
	a := n.args
	const cwd = unix.AT_FDCWD
	var errno unix.Errno
	switch nrNames()[n.nr] {
	case "open":
		return s.open(t, n, cwd, a[0], a[1], a[2])
	case "openat":
		return s.open(t, n, int32(a[0]), a[1], a[2], a[3])
	case "creat":
		return s.open(t, n, cwd, a[0], unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, a[1])
	case "mkdir":
		errno = s.mkdir(t, cwd, a[0], a[1])
	case "mkdirat":
		errno = s.mkdir(t, int32(a[0]), a[1], a[2])
	case "mknod":
		errno = s.mknod(t, cwd, a[0], a[1], a[2])
	case "mknodat":
		errno = s.mknod(t, int32(a[0]), a[1], a[2], a[3])
	case "symlink":
		errno = s.symlink(t, a[0], cwd, a[1])
	case "symlinkat":
		errno = s.symlink(t, a[0], int32(a[1]), a[2])
	case "link":
		errno = s.link(t, cwd, a[0], cwd, a[1], 0)
	case "linkat":
		errno = s.link(t, int32(a[0]), a[1], int32(a[2]), a[3], a[4])
	case "rename":
		errno = s.rename(t, cwd, a[0], cwd, a[1], 0)
	case "renameat":
		errno = s.rename(t, int32(a[0]), a[1], int32(a[2]), a[3], 0)
	case "renameat2":
		errno = s.rename(t, int32(a[0]), a[1], int32(a[2]), a[3], a[4])
	case "truncate":
		errno = s.truncate(t, a[0], int64(a[1]))
	case "unlink":
		errno = s.remove(t, cwd, a[0], 0)
	case "unlinkat":
		errno = s.remove(t, int32(a[0]), a[1], a[2])
	case "rmdir":
		errno = s.remove(t, cwd, a[0], unix.AT_REMOVEDIR)
	default:
		errno = unix.ENOSYS
	}
	switch errno {
	case 0:
		return answerValue(n.id, 0)
	case errContinue:
		return answerContinue(n.id)
	}
	return answerErrno(n.id, errno)
}

// mayCreate reports whether a new name may appear at l. content says the
// call brings something along (a file, a symlink, a link, a renamed tree)
// rather than an empty directory, and so may not land on an ancestor of a
// protected path either. "." and ".." name existing directories: nothing
// is created there, and the kernel gives its own error.
func (s *supervisor) mayCreate(l *loc, content bool) bool {
	if l.dot {
		return true
	}
	return !s.rules.Protected(l.path) && !(content && s.rules.Encloses(l.path))
}

// lookup reads a path argument and resolves it for the target.
func (t *target) lookup(dirfd int32, addr uint64) (*loc, unix.Errno) {
	path, errno := t.readPath(addr)
	if errno != 0 {
		return nil, errno
	}
	return t.resolve(dirfd, path)
}

// perform runs op as the supervisor's own call (see asSelf), on a thread
// restricted by Rules.Confine when there is one, or, in the racy test-only
// mode, lets the kernel run the target's call instead.
func (s *supervisor) perform(op func() error) unix.Errno {
	if s.racy {
		return errContinue
	}
	call := func() unix.Errno {
		return s.asSelf(func() unix.Errno {
			if err := op(); err != nil {
				return errnoOf(err, unix.EIO) // never 0 for a failure
			}
			return 0
		})
	}
	return s.onConfined(call)
}

// onConfined runs call on a thread restricted by Rules.Confine (one kept
// for later calls), or right here when there is no Confine.
func (s *supervisor) onConfined(call func() unix.Errno) unix.Errno {
	if s.rules.Confine == nil {
		return call()
	}
	j := job{call: call, res: make(chan unix.Errno, 1)}
	select {
	case s.confined <- j: // an idle confined thread takes it
	default:
		go s.confinedWorker(j) // none idle: one more (a blocking open holds one)
	}
	return <-j.res
}

// job is one call for a confined thread.
type job struct {
	call func() unix.Errno
	res  chan unix.Errno
}

// confinedWorker runs calls on a thread restricted once by Rules.Confine
// and kept for later calls (a fresh thread and ruleset per call cost
// more than the call). The thread is locked and never unlocked: it exits
// with the goroutine instead of going back to the runtime's pool, so no
// other goroutine ever runs restricted. If Confine fails, the call and
// every later one it would take are refused (EACCES).
func (s *supervisor) confinedWorker(first job) {
	runtime.LockOSThread()
	if err := s.rules.Confine(); err != nil {
		first.res <- unix.EACCES
		return
	}
	first.res <- first.call()
	for j := range s.confined {
		j.res <- j.call()
	}
}

func (s *supervisor) mkdir(t *target, dirfd int32, addr, mode uint64) unix.Errno {
	l, errno := t.lookup(dirfd, addr)
	if errno != 0 {
		return errno
	}
	defer l.close()
	if !s.mayCreate(l, false) {
		return errRefused
	}
	m, errno := t.createMode(uint32(mode) & 0o1777)
	if errno != 0 {
		return errno
	}
	return s.perform(func() error { return unix.Mkdirat(l.dir, l.name, m) })
}

// mknod makes regular files, FIFOs and sockets. Device nodes fail with
// EPERM, as they do for any process in a user namespace: the supervisor
// may hold CAP_MKNOD the command lacks, so it does not even try.
func (s *supervisor) mknod(t *target, dirfd int32, addr, mode, dev uint64) unix.Errno {
	typ := uint32(mode) & unix.S_IFMT
	switch typ {
	case 0, unix.S_IFREG, unix.S_IFIFO, unix.S_IFSOCK:
	case unix.S_IFCHR, unix.S_IFBLK:
		return unix.EPERM
	default:
		return unix.EINVAL
	}
	l, errno := t.lookup(dirfd, addr)
	if errno != 0 {
		return errno
	}
	defer l.close()
	if !s.mayCreate(l, true) || !s.named(l, actFile) {
		return errRefused
	}
	m, errno := t.createMode(uint32(mode) & 0o7777)
	if errno != 0 {
		return errno
	}
	return s.perform(func() error { return unix.Mknodat(l.dir, l.name, typ|m, int(uint32(dev))) })
}

// symlink creates a symlink; its content is copied once and never looked
// up here (it is just bytes until someone follows it, and following it is
// checked again then).
func (s *supervisor) symlink(t *target, targetAddr uint64, dirfd int32, addr uint64) unix.Errno {
	content, errno := t.readPath(targetAddr)
	if errno != 0 {
		return errno
	}
	if content == "" {
		return unix.ENOENT
	}
	l, errno := t.lookup(dirfd, addr)
	if errno != 0 {
		return errno
	}
	defer l.close()
	if !s.mayCreate(l, true) || !s.named(l, actTree) {
		return errRefused
	}
	// A link into a node_modules tree from outside one would show what
	// is there (made unjudged) under a path where names are held.
	if s.rules.Names != nil && !l.dot && policy.UnderNodeModules(content) {
		if np := s.npath(l); s.underRoot(np) && !s.rules.Names.exempt(np) {
			return errRefused
		}
	}
	return s.perform(func() error { return unix.Symlinkat(content, l.dir, l.name) })
}

// link checks both sides: the new name as any creation, and the old one so
// that a protected file gets no second, writable name.
func (s *supervisor) link(t *target, olddir int32, oldAddr uint64, newdir int32, newAddr, flags uint64) unix.Errno {
	if flags&^uint64(unix.AT_SYMLINK_FOLLOW|unix.AT_EMPTY_PATH) != 0 {
		return unix.EINVAL
	}
	oldPath, errno := t.readPath(oldAddr)
	if errno != 0 {
		return errno
	}
	nl, errno := t.lookup(newdir, newAddr)
	if errno != 0 {
		return errno
	}
	defer nl.close()
	if !s.mayCreate(nl, true) || !s.named(nl, actFile) {
		return errRefused
	}
	// The source is pinned (linkSource) and checked by the path it really
	// has, then linked from the pinned descriptor: a symlink followed,
	// an open descriptor, /proc/self/fd/N, or a swap after the check all
	// end up at the inode that was checked.
	src, errno := s.linkSource(t, olddir, oldPath, flags)
	if errno != 0 {
		return errno
	}
	defer unix.Close(src)
	self := "/proc/self/fd/" + strconv.Itoa(src)
	return s.perform(func() error { return unix.Linkat(unix.AT_FDCWD, self, nl.dir, nl.name, unix.AT_SYMLINK_FOLLOW) })
}

// rename checks both sides: nothing lands on a protected path or on an
// ancestor of one, and nothing protected is moved away (which would let a
// fresh one be made in its place). Moving an ancestor away is allowed: a
// new one made in its place is as protected as the old.
func (s *supervisor) rename(t *target, olddir int32, oldAddr uint64, newdir int32, newAddr, flags uint64) unix.Errno {
	ol, errno := t.lookup(olddir, oldAddr)
	if errno != 0 {
		return errno
	}
	defer ol.close()
	nl, errno := t.lookup(newdir, newAddr)
	if errno != 0 {
		return errno
	}
	defer nl.close()
	exchange := flags&unix.RENAME_EXCHANGE != 0
	if !s.mayCreate(nl, true) || (!ol.dot && s.rules.Protected(ol.path)) || (exchange && !s.mayCreate(ol, true)) {
		return errRefused
	}
	if s.rules.KeepAncestors && ((!ol.dot && s.rules.Encloses(ol.path)) || (exchange && !nl.dot && s.rules.Encloses(nl.path))) {
		return errRefused
	}
	if s.rules.Names == nil || ol.dot || nl.dot {
		return s.perform(func() error { return unix.Renameat2(ol.dir, ol.name, nl.dir, nl.name, uint(flags)) })
	}
	return s.renameNamed(ol, nl, flags)
}

// open creates (or opens) a file for the target and installs the
// descriptor in it with SECCOMP_IOCTL_NOTIF_ADDFD, then answers the call
// with its number (sendFd says why not in one step with
// SECCOMP_ADDFD_FLAG_SEND).
func (s *supervisor) open(t *target, n notif, dirfd int32, addr, flags64, mode uint64) notifResp {
	flags := int(int32(flags64))
	l, errno := t.lookup(dirfd, addr)
	if errno != 0 {
		return answerErrno(n.id, errno)
	}
	extra := 0
	if flags&(unix.O_EXCL|unix.O_NOFOLLOW) == 0 {
		if l, errno = t.follow(l); errno != 0 {
			return answerErrno(n.id, errno)
		}
		if !l.proc {
			extra = unix.O_NOFOLLOW // a symlink swapped in after follow: ELOOP
		}
	}
	defer l.close()
	if s.pointer(l, flags) {
		return s.openPointer(t, n, l, flags, mode)
	}
	if !s.mayOpen(l, flags) {
		return answerErrno(n.id, errRefused)
	}
	if l.proc && flags&writeFlags != 0 {
		return s.openProc(n, l, flags)
	}
	m, errno := t.createMode(uint32(mode) & 0o7777)
	if errno != 0 {
		return answerErrno(n.id, errno)
	}
	fd := -1
	errno = s.perform(func() error {
		var err error
		fd, err = unix.Openat(l.dir, l.name, flags|extra|unix.O_CLOEXEC, m)
		return err
	})
	switch errno {
	case 0:
	case errContinue:
		return answerContinue(n.id)
	default:
		return answerErrno(n.id, errno)
	}
	return s.sendFd(n.id, fd, flags&unix.O_CLOEXEC != 0) // closes fd
}

// notifAddfd is struct seccomp_notif_addfd.
type notifAddfd struct {
	id         uint64
	flags      uint32
	srcfd      uint32
	newfd      uint32
	newfdFlags uint32
}

// sendFd installs fd in the target as the result of its call, and
// closes the supervisor's own copy BEFORE the target resumes. (With
// SECCOMP_ADDFD_FLAG_SEND the target resumes inside the ioctl, while the
// supervisor still holds a writable descriptor of the file: a script the
// command wrote and then executes at once failed with ETXTBSY whenever
// the supervisor was descheduled before its close — ordinary work,
// `printf … > s.sh && chmod +x s.sh && ./s.sh`, under load.) So the
// descriptor is added without SEND, closed here, and the call answered
// with its number. If a signal interrupts the target between the two, it
// keeps a descriptor it asked for and was allowed, without knowing its
// number: a leak of one descriptor, not of access. If adding fails
// (EMFILE, say), the notification is answered with the error. sendFd
// takes ownership of fd.
func (s *supervisor) sendFd(id uint64, fd int, cloexec bool) notifResp {
	a := notifAddfd{id: id, srcfd: uint32(fd)}
	if cloexec {
		a.newfdFlags = unix.O_CLOEXEC
	}
	r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(s.fd), unix.SECCOMP_IOCTL_NOTIF_ADDFD, uintptr(unsafe.Pointer(&a)))
	unix.Close(fd)
	switch e {
	case 0:
		return answerValue(id, int64(r))
	case unix.ENOENT: // the target is gone
		return answered()
	}
	return answerErrno(id, e)
}
