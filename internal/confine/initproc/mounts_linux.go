package initproc

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"

	"golang.org/x/sys/unix"
)

// view is the mount view under construction: a detached copy of the host's
// root (or an empty tmpfs), attached at a staging directory of our private
// mount namespace, then pivoted into.
type view struct {
	root int             // O_PATH descriptor of the view's root mount
	ours map[uint64]bool // mount ids of the tmpfs mounts we made: only there may we create mountpoints
	// roLater are mounts to make read-only once the view is built.
	roLater []int
}

// stagingDirs are places to attach the view before pivoting. Attaching
// there hides nothing the view needs: every bind source is cloned first.
var stagingDirs = []string{"/tmp", "/mnt", "/run", "/var/tmp", "/dev"}

// buildView builds v and pivots into it. Nothing it does is visible
// outside the init's mount namespace, and nothing is created on the host:
// missing mountpoints are created only inside tmpfs mounts the init made.
func buildView(v *View) error {
	// Without this, our mounts would propagate to the host's shared mounts.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return stage("mounts", fmt.Errorf("making mounts private: %w", err))
	}
	// Clone every bind source now: attaching the view at /tmp would hide a
	// workspace that lives under /tmp.
	srcs, err := cloneSources(v.Ops)
	if err != nil {
		return stage("mounts", err)
	}
	defer closeAll(srcs)
	var top []rootEntry
	if v.SynthRoot && !v.EmptyBase {
		if top, err = cloneRootEntries(); err != nil {
			return stage("mounts", err)
		}
		defer closeEntries(top)
	}
	vw := &view{ours: map[uint64]bool{}}
	defer vw.closeLater()
	if err := vw.attachBase(v.EmptyBase || v.SynthRoot); err != nil {
		return stage("mounts", fmt.Errorf("view base: %w", err))
	}
	if err := vw.fillRoot(top); err != nil {
		return stage("mounts", fmt.Errorf("view base: %w", err))
	}
	for i, op := range v.Ops {
		if err := vw.apply(op, srcs[i]); err != nil {
			return stage("mounts", fmt.Errorf("%s: %w", op.Kind, err))
		}

	}
	if err := vw.finish(); err != nil {
		return stage("mounts", err)
	}
	if v.EmptyBase || v.SynthRoot {
		if err := setattr(vw.root, false, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
			return stage("mounts", err)
		}
	}
	return stage("pivot", vw.pivot())
}

func closeAll(fds map[int]int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// cloneSources returns, per op index, a detached clone of the op's host
// source with its final attributes set (for an overlay, the new overlay).
// A missing source is left out.
func cloneSources(ops []Op) (map[int]int, error) {
	srcs := map[int]int{}
	for i, op := range ops {
		var fd int
		var err error
		switch op.Kind {
		case BindRW, BindRO:
			fd, err = cloneTree(op.Source, op.Kind == BindRO)
		case Overlay:
			fd, err = newOverlay(op)
		default:
			continue
		}
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			closeAll(srcs)
			return nil, fmt.Errorf("clone %s: %w", op.Kind, err)
		}
		srcs[i] = fd
	}
	return srcs, nil
}

// cloneTree clones the mount tree at src (recursively) as a detached tree.
func cloneTree(src string, ro bool) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, src,
		unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return -1, err
	}
	if ro {
		err = setattr(fd, true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
	} else {
		err = setattr(fd, true, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, unix.MOUNT_ATTR_RDONLY)
		if errors.Is(err, unix.EPERM) {
			// A host mount that is read-only is locked so in our user
			// namespace: it stays read-only, as it must.
			err = setattr(fd, true, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
		}
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

func setattr(fd int, recursive bool, set, clr uint64) error {
	flags := uint(unix.AT_EMPTY_PATH)
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	return unix.MountSetattr(fd, "", flags, &unix.MountAttr{Attr_set: set, Attr_clr: clr})
}

// attachBase makes the view's root and attaches it at a staging directory.
func (vw *view) attachBase(empty bool) error {
	var fd int
	var err error
	if empty {
		fd, err = vw.newTmpfs("0755", 0, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	} else {
		fd, err = unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err == nil {
			err = setattr(fd, true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
		}
	}
	if err != nil {
		return fmt.Errorf("cloning the root: %w", err)
	}
	for _, dir := range stagingDirs {
		if fi, serr := os.Lstat(dir); serr != nil || !fi.IsDir() {
			continue
		}
		if err = unix.MoveMount(fd, "", unix.AT_FDCWD, dir, unix.MOVE_MOUNT_F_EMPTY_PATH); err == nil {
			vw.root = fd
			return nil
		}
	}
	unix.Close(fd)
	return fmt.Errorf("no staging directory to attach the view: %w", err)
}

// newTmpfs makes a detached tmpfs and remembers it as ours.
// A size of 0 leaves the kernel's default (half the RAM).
func (vw *view) newTmpfs(mode string, size int64, attrs int) (int, error) {
	opts := map[string]string{"mode": mode}
	if size > 0 {
		opts["size"] = strconv.FormatInt(size, 10)
	}
	return vw.newFS("tmpfs", opts, attrs, true)
}

func (vw *view) newFS(fstype string, opts map[string]string, attrs int, ours bool) (int, error) {
	fsfd, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen %s: %w", fstype, err)
	}
	defer unix.Close(fsfd)
	for k, val := range opts {
		if val == "" {
			err = unix.FsconfigSetFlag(fsfd, k)
		} else {
			err = unix.FsconfigSetString(fsfd, k, val)
		}
		if err != nil {
			return -1, fmt.Errorf("fsconfig %s %s: %w", fstype, k, err)
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("fsconfig create %s: %w", fstype, err)
	}
	fd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, attrs)
	if err != nil {
		return -1, fmt.Errorf("fsmount %s: %w", fstype, err)
	}
	if ours {
		id, err := mountID(fd)
		if err != nil {
			unix.Close(fd)
			return -1, err
		}
		vw.ours[id] = true
	}
	return fd, nil
}

func mountID(fd int) (uint64, error) {
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_MNT_ID, &stx); err != nil {
		return 0, err
	}
	return stx.Mnt_id, nil
}

// errMissing says a target does not exist and cannot be created without
// touching the host.
var errMissing = errors.New("mountpoint missing on the host")

// resolve opens target (a view path) inside the view, following links as
// the command would, never out of it. With create, missing components are
// made, but only inside tmpfs mounts of ours; dir says what the last one is.
func (vw *view) resolve(target string, create, dir bool) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(vw.root, target, &how)
	if !errors.Is(err, unix.ENOENT) || !create || target == "/" {
		return fd, err
	}
	parent, err := vw.resolve(path.Dir(target), true, true)
	if err != nil {
		return -1, err
	}
	defer unix.Close(parent)
	id, err := mountID(parent)
	if err != nil {
		return -1, err
	}
	if !vw.ours[id] {
		return -1, errMissing
	}
	if err := makeNode(parent, path.Base(target), dir); err != nil {
		return -1, err
	}
	return unix.Openat2(vw.root, target, &how)
}

func makeNode(parent int, name string, dir bool) error {
	if dir {
		return unix.Mkdirat(parent, name, 0o755)
	}
	return unix.Mknodat(parent, name, unix.S_IFREG|0o444, 0)
}

func isDirFD(fd int) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, err
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR, nil
}

// mountAt attaches the detached mount src at target.
func (vw *view) mountAt(src int, target string, create, dir bool) error {
	tfd, err := vw.resolve(target, create, dir)
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	return unix.MoveMount(src, "", tfd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

func (vw *view) pivot() error {
	if err := unix.Fchdir(vw.root); err != nil {
		return err
	}
	// pivot_root(".", ".") stacks the old root under the new one; detaching
	// it leaves no path back to the host's tree.
	if err := unix.PivotRoot(".", "."); err != nil {
		return err
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return err
	}
	unix.Close(vw.root)
	return unix.Chdir("/")
}
