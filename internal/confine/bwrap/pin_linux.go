package bwrap

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// pin is one directory of PinDirs, opened.
type pin struct {
	dir string
	f   *os.File
}

// openPins opens every directory of PinDirs(p) beneath its writable root
// with openat2: no link followed (RESOLVE_NO_SYMLINKS, so a link the
// command planted in its workspace cannot steer a read-write bind onto a
// host directory), never above the root (RESOLVE_BENEATH). A directory
// that does not exist, is not a directory or is reached through a link is
// not pinned: there is nothing of the workspace's to hold there (the
// carve-out beneath it is then missing too, and guarded as such). Any
// other failure fails the run: the view would be weaker than planned.
func openPins(p *policy.Policy) ([]pin, error) {
	var out []pin
	roots := map[string]int{}
	defer func() {
		for _, fd := range roots {
			_ = unix.Close(fd)
		}
	}()
	for _, dir := range PinDirs(p) {
		root := PinRoot(p, dir)
		rfd, ok := roots[root]
		if !ok {
			fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				closePins(out)
				return nil, fmt.Errorf("bwrap: cannot open a writable root to pin its directories: %w", err)
			}
			roots[root], rfd = fd, fd
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")
		fd, err := unix.Openat2(rfd, rel, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		})
		switch {
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
			continue
		case err != nil:
			closePins(out)
			return nil, fmt.Errorf("bwrap: cannot open a directory to pin: %w", err)
		}
		out = append(out, pin{dir: dir, f: os.NewFile(uintptr(fd), dir)})
	}
	return out, nil
}

func closePins(ps []pin) {
	for _, p := range ps {
		_ = p.f.Close()
	}
}
