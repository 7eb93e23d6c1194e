package linux

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// Filesystems that cannot hold an overlay's upper directory in a user
// namespace: overlayfs itself (the usual container root), and those
// without user extended attributes.
var noUpperFS = map[int64]string{
	unix.OVERLAYFS_SUPER_MAGIC: "overlayfs",
	unix.NFS_SUPER_MAGIC:       "nfs",
	0xf15f:                     "ecryptfs",
	unix.FUSE_SUPER_MAGIC:      "fuse",
}

// overlayUnsupported says why upper cannot be an overlay's upper
// directory here, or "" when it can. Checked on the host before the init
// starts, so that a home that cannot be layered falls back to the cache
// redirection (and says so) instead of failing every run at set-up.
func overlayUnsupported(upper string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(upper, &st); err != nil {
		return fmt.Sprintf("state directory: %v", err)
	}
	if name, bad := noUpperFS[int64(st.Type)]; bad {
		return "the state directory is on " + name + ", which cannot hold an overlay's upper layer"
	}
	return ""
}

// homeSubmounts says why home cannot be overlaid when mounts lie beneath
// it: in the init's user namespace they are locked, and overlayfs refuses
// a lower directory holding locked mounts. "" when there are none.
func homeSubmounts(home string) string {
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return fmt.Sprintf("mount table: %v", err)
	}
	subs := initproc.SubmountsUnder(string(info), home)
	if len(subs) == 0 {
		return ""
	}
	return fmt.Sprintf("%d mount(s) beneath home, which overlayfs cannot layer in a user namespace", len(subs))
}
