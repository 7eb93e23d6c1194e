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

// openPins opens every directory of PinDirs(p) beneath its writable root,
// one component at a time without following a link (O_NOFOLLOW with
// O_DIRECTORY: a link is ENOTDIR), so a link the command planted in its
// workspace cannot steer a read-write bind onto a host directory. (A walk,
// not openat2, so that kernels before 5.6 — the hosts bwrap is for — pin
// too.) A directory that does not exist, is not a directory or is reached
// through a link is not pinned: there is nothing of the workspace's to
// hold there (the carve-out beneath it is then missing too, and guarded as
// such). Any other failure fails the run: the view would be weaker than
// planned.
func openPins(p *policy.Policy) ([]pin, error) {
	var out []pin
	for _, dir := range PinDirs(p) {
		root := PinRoot(p, dir)
		fd, err := openBeneath(root, strings.TrimPrefix(strings.TrimPrefix(dir, root), "/"))
		switch {
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP):
			continue
		case err != nil:
			closePins(out)
			return nil, fmt.Errorf("bwrap: cannot open a directory to pin: %w", err)
		}
		out = append(out, pin{dir: dir, f: os.NewFile(uintptr(fd), dir)})
	}
	return out, nil
}

// openBeneath opens the directory rel (clean, relative) under root as an
// O_PATH descriptor, following no link on the way.
func openBeneath(root, rel string) (int, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	for _, name := range strings.Split(rel, "/") {
		if name == "" || name == "." || name == ".." {
			_ = unix.Close(fd)
			return -1, fmt.Errorf("not a clean relative path: %q", rel)
		}
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		_ = unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

func closePins(ps []pin) {
	for _, p := range ps {
		_ = p.f.Close()
	}
}
