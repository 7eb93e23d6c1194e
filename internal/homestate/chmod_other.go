//go:build unix && !linux

package homestate

import "golang.org/x/sys/unix"

// chmodDir makes the directory name in dirfd 0700 without following a
// link (no overlay layer is made off Linux; this only keeps Clear whole).
func chmodDir(dirfd int, name string) error {
	return unix.Fchmodat(dirfd, name, 0o700, unix.AT_SYMLINK_NOFOLLOW)
}
