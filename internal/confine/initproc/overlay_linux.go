package initproc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// newOverlay makes a detached overlayfs: op.Source read-only below,
// op.Upper and op.Work (on one filesystem) taking every change. It is made
// before the view is attached, so the host paths resolve on the host (the
// view is attached at a staging directory such as /tmp, which would hide a
// home or state directory there).
//
// In a user namespace the kernel (≥ 5.11) allows overlayfs only with
// "userxattr": whiteouts and opaque directories are kept in user.*
// attributes, so the upper directory needs a filesystem that has them
// (ext4, xfs, btrfs, tmpfs ≥ 6.6). The upper directory is never in the
// view: only the overlay writes there.
func newOverlay(op Op) (int, error) {
	fsfd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("fsopen overlay: %w", err)
	}
	defer unix.Close(fsfd)
	// index=off: runs of one workspace at the same time share the upper
	// directory; with the inode index on, the kernel refuses the second
	// mount (EBUSY) instead of warning. See the package doc's gaps.
	//
	// By path, the kernel refuses a lower directory with mounts beneath
	// it, which are locked in our user namespace ("failed to clone
	// lowerpath", EINVAL): the backend does not ask for an overlay then
	// (initproc.SubmountsUnder) but falls back to the cache redirection.
	for _, kv := range [][2]string{{"lowerdir", op.Source}, {"upperdir", op.Upper}, {"workdir", op.Work}, {"index", "off"}} {
		if err := unix.FsconfigSetString(fsfd, kv[0], kv[1]); err != nil {
			return -1, fmt.Errorf("overlay %s: %w", kv[0], err)
		}
	}
	if err := unix.FsconfigSetFlag(fsfd, "userxattr"); err != nil {
		return -1, fmt.Errorf("overlay userxattr: %w", err)
	}
	// volatile: the layer's sync calls skip the upper filesystem. Without
	// it the overlay's teardown, when the sandbox's last process exits,
	// syncs the whole filesystem holding the upper directory — every dirty
	// page of the host's on it, and a disk cache flush — at the end of every
	// run (2.7 ms idle, 20 ms with 32 MiB dirty on the PVM host). What that
	// costs the layer — fsync under home does not reach the disk, and
	// reports any write error of the upper filesystem since the mount; a
	// crash leaves it to be reset — is homestate's (NewRunWork). Kernels
	// that have userxattr (5.11) have volatile (5.10).
	_ = unix.FsconfigSetFlag(fsfd, "volatile")
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return -1, fmt.Errorf("overlay create: %w", err)
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
	if err != nil {
		return -1, err
	}
	// Where overlayfs cannot make its work directory it mounts read-only
	// and only logs why: the command would then see every write to home
	// refused. Say so instead.
	var st unix.Statfs_t
	if err := unix.Fstatfs(mfd, &st); err != nil || st.Flags&unix.ST_RDONLY != 0 {
		unix.Close(mfd)
		return -1, fmt.Errorf("overlay over %s came up read-only (its work directory %s could not be made)", op.Source, op.Work)
	}
	return mfd, nil
}
