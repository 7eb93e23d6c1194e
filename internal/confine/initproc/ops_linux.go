package initproc

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// apply performs one op. src is the op's cloned source (0 when none).
func (vw *view) apply(op Op, src int) error {
	switch op.Kind {
	case BindRW, BindRO:
		if src == 0 {
			return nil // the host has nothing there: nothing to grant or protect
		}
		return vw.bind(op, src)
	case Mask:
		return vw.mask(op.Target)
	case Tmpfs:
		return vw.tmpfs(op.Target, op.RO, op.Size)
	case Overlay:
		if src == 0 {
			return nil // the lower directory is missing: nothing to show there
		}
		return vw.mountAt(src, op.Target, true, true)
	case Proc:
		return vw.proc(op.Target)
	case ProcHost:
		return vw.procHost(op.Target)
	case Dev:
		return vw.dev(op.Target, op.RO, op.Size)
	case Pin:
		return vw.pin(op.Target)
	}
	return fmt.Errorf("unknown mount op %q", op.Kind)
}

func (vw *view) bind(op Op, src int) error {
	dir, err := isDirFD(src)
	if err != nil {
		return err
	}
	err = vw.mountAt(src, op.Target, true, dir)
	if errors.Is(err, errMissing) || errors.Is(err, unix.ENOENT) {
		// The source exists but the target, resolved inside the view, does
		// not (a link in the view leads elsewhere): the host path the
		// command can reach is the target, and it is missing there.
		return nil
	}
	return err
}

// mask hides target: a directory under an empty tmpfs of mode 000, a file
// under a no-dev bind of /dev/null, so every open of it, read or write,
// fails with "Permission denied" once capabilities are gone.
func (vw *view) mask(target string) error {
	tfd, err := vw.resolve(target, false, false)
	if errors.Is(err, unix.ENOENT) {
		return nil // nothing to hide; creating it later is a write, refused elsewhere
	}
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	dir, err := isDirFD(tfd)
	if err != nil {
		return err
	}
	var src int
	const attrs = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC
	if dir {
		src, err = vw.newFS("tmpfs", map[string]string{"mode": "000", "size": "4k"}, attrs, false)
	} else {
		src, err = unix.OpenTree(unix.AT_FDCWD, "/dev/null", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err == nil {
			err = setattr(src, false, attrs, 0)
		}
	}
	if err != nil {
		return err
	}
	defer unix.Close(src)
	return unix.MoveMount(src, "", tfd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// tmpfs mounts a private tmpfs. A read-only one is made read-only only
// once the whole view is built (finish): paths shown inside it (a
// workspace under /tmp) need mountpoints made in it first.
func (vw *view) tmpfs(target string, ro bool, size int64) error {
	fd, err := vw.newTmpfs("1777", size, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return err
	}
	if err := vw.mountAt(fd, target, true, true); err != nil {
		unix.Close(fd)
		return err
	}
	if !ro {
		return unix.Close(fd)
	}
	vw.roLater = append(vw.roLater, fd)
	return nil
}

// finish makes read-only what had to stay writable while mountpoints were
// made in it.
func (vw *view) finish() error {
	for _, fd := range vw.roLater {
		if err := setattr(fd, false, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
			return err
		}
	}
	return nil
}

func (vw *view) closeLater() {
	for _, fd := range vw.roLater {
		unix.Close(fd)
	}
}

// proc mounts a procfs of the init's own pid namespace: host processes are
// not in it, so /proc/<pid>/{root,cwd,environ,mem} of the host cannot be
// reached through it. It is read-only: when the caller is root, uid 0 of
// the sandbox is the host's root, which the mode bits of /proc/sys and
// /proc/sysrq-trigger let write, and the mount view must confine writes
// by itself (seccomp's create supervisor acts outside Landlock).
func (vw *view) proc(target string) error {
	const attrs = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC
	fd, err := vw.newFS("proc", nil, attrs, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return vw.mountAt(fd, target, true, true)
}

// devNodes are the host devices the minimal /dev carries.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

var devLinks = [][2]string{
	{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"}, {"ptmx", "pts/ptmx"},
}

// dev builds a minimal /dev: a read-only tmpfs holding binds of a few
// harmless host devices, a private devpts and a private /dev/shm.
func (vw *view) dev(target string, ro bool, shmSize int64) error {
	fd, err := vw.newTmpfs("0755", 0, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := vw.mountAt(fd, target, true, true); err != nil {
		return err
	}
	for _, name := range devNodes {
		if err := vw.devNode(fd, target, name); err != nil {
			return err
		}
	}
	for _, l := range devLinks {
		if err := unix.Symlinkat(l[1], fd, l[0]); err != nil {
			return err
		}
	}
	if err := vw.console(fd, target); err != nil {
		return err
	}
	if err := vw.devpts(target + "/pts"); err != nil {
		return err
	}
	if err := vw.tmpfs(target+"/shm", ro, shmSize); err != nil {
		return err
	}
	return setattr(fd, false, unix.MOUNT_ATTR_RDONLY, 0)
}

func (vw *view) devNode(devfd int, target, name string) error {
	src, err := unix.OpenTree(unix.AT_FDCWD, "/dev/"+name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENXIO) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("/dev/%s: %w", name, err)
	}
	defer unix.Close(src)
	if err := setattr(src, false, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, 0); err != nil {
		return err
	}
	if err := unix.Mknodat(devfd, name, unix.S_IFREG|0o666, 0); err != nil {
		return err
	}
	return vw.mountAt(src, target+"/"+name, false, false)
}

func (vw *view) devpts(target string) error {
	opts := map[string]string{"newinstance": "", "ptmxmode": "0666", "mode": "0620"}
	fd, err := vw.newFS("devpts", opts, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, false)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return vw.mountAt(fd, target, true, true)
}

// pin makes target a mountpoint of its own, carrying what is mounted
// beneath it, so it can be neither renamed nor removed.
func (vw *view) pin(target string) error {
	tfd, err := vw.resolve(target, false, true)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	src, err := unix.OpenTree(tfd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	return unix.MoveMount(src, "", tfd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}
