//go:build unix

package homestate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// runWorkPrefix names the per-run overlay work directories in a layer's
// work directory.
const runWorkPrefix = "run-"

// NewRunWork makes a fresh overlay work directory for one run inside the
// layer's work directory (same filesystem as its upper directory) and
// returns it with the function that removes it. Runs of one workspace at
// the same time share the upper directory but never a work directory:
// overlayfs empties and remakes <work>/work at every mount, and a mount
// racing another fails to and comes up read-only (a concurrent run saw
// EROFS on home).
//
// The directory is held with an exclusive flock for as long as the run
// lives, by a descriptor of this process: a ringfence killed before it
// removes the directory drops the lock with its descriptors, and the next
// Prepare of the layer sweeps what nobody holds.
func NewRunWork(work string) (string, func(), error) {
	dir, err := os.MkdirTemp(work, runWorkPrefix)
	if err != nil {
		return "", nil, fmt.Errorf("state directory: %w", err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		_ = removeAll(dir)
		return "", nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	return dir, func() {
		_ = removeAll(dir)
		unix.Close(fd)
	}, nil
}

// sweepRunWork removes the run work directories in work that no live run
// holds (see NewRunWork). Best effort: what cannot be removed now is
// tried again at the next start.
func sweepRunWork(work string) {
	entries, err := os.ReadDir(work)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), runWorkPrefix) {
			continue
		}
		dir := filepath.Join(work, e.Name())
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			_ = removeAll(dir)
		}
		unix.Close(fd)
	}
}
