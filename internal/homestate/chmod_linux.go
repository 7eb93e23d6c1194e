package homestate

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// chmodDir makes the directory name in dirfd 0700. It opens it O_PATH
// without following a link (a mode-000 directory cannot be opened for
// reading), then changes the mode through the descriptor's /proc link,
// which names that inode and is never resolved by name again.
func chmodDir(dirfd int, name string) error {
	fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Chmod("/proc/self/fd/"+strconv.Itoa(fd), 0o700)
}
