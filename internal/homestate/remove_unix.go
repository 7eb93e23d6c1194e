//go:build unix

package homestate

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// removeAll removes dir and everything in it through descriptors (see
// Clear). dir's parent is trusted (ringfence's own state directory).
func removeAll(dir string) error {
	parent, err := unix.Open(filepath.Dir(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	defer unix.Close(parent)
	if err := removeAt(parent, filepath.Base(dir), 0); err != nil {
		return fmt.Errorf("clear %s: %w", dir, err)
	}
	return nil
}

// maxDepth bounds the recursion: a layer deeper than this is refused
// rather than walked (a command could build one to exhaust the stack).
const maxDepth = 512

// removeAt removes name in the directory dirfd: a non-directory is
// unlinked; a directory is opened without following links, made 0700,
// emptied and removed.
func removeAt(dirfd int, name string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	if depth > maxDepth {
		return fmt.Errorf("layer nested deeper than %d directories", maxDepth)
	}
	// A directory of mode 000 (overlayfs's work directory) can be neither
	// read nor opened for reading: make it 0700 first, without following
	// a link (chmodDir), then open it, again without following one.
	if err := chmodDir(dirfd, name); err != nil {
		return err
	}
	rd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	for {
		names, err := readNames(rd)
		if err != nil {
			unix.Close(rd)
			return err
		}
		if len(names) == 0 {
			break
		}
		for _, n := range names {
			if err := removeAt(rd, n, depth+1); err != nil {
				unix.Close(rd)
				return err
			}
		}
	}
	unix.Close(rd)
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// readNames reads the entries of the directory fd from its start.
func readNames(fd int) ([]string, error) {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil, err
	}
	buf := make([]byte, 16<<10)
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}
