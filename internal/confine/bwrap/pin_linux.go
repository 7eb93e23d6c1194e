package bwrap

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/viewplan"
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
func openPins(vp *viewplan.Plan) ([]pin, error) {
	var out []pin
	for _, pd := range vp.Pins {
		dir, root := pd.Dir, pd.Root
		fd, err := openBeneath(root, strings.TrimPrefix(strings.TrimPrefix(dir, root), "/"), true)
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

// openBeneath opens rel (clean, relative) under root as an O_PATH
// descriptor, following no link on the way or at the end: every component
// but the last must be a directory, and the last one a directory if dir,
// else anything but a directory or a link.
func openBeneath(root, rel string, dir bool) (int, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	names := strings.Split(rel, "/")
	for i, name := range names {
		if name == "" || name == "." || name == ".." {
			_ = unix.Close(fd)
			return -1, fmt.Errorf("not a clean relative path: %q", rel)
		}
		flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if dir || i < len(names)-1 {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, name, flags, 0)
		_ = unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	if !dir {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK || st.Mode&unix.S_IFMT == unix.S_IFDIR {
			_ = unix.Close(fd)
			return -1, fmt.Errorf("%s is no longer the file it was: %w", rel, unix.ELOOP)
		}
	}
	return fd, nil
}

// openEntries opens what Plan asked for (an expanded root's entries), in
// order. Any failure fails the run: the entry changed since it was listed
// (a link swapped in, say), and binding whatever is there now could bind a
// host file read-write.
func openEntries(vp *viewplan.Plan, opens []Open) ([]*os.File, error) {
	var out []*os.File
	for _, o := range opens {
		root := vp.RootOf(o.Path)
		fd := -1
		err := fmt.Errorf("outside every writable root")
		if root != "" && root != o.Path {
			fd, err = openBeneath(root, strings.TrimPrefix(strings.TrimPrefix(o.Path, root), "/"), o.Dir)
		}
		if err != nil {
			for _, f := range out {
				_ = f.Close()
			}
			return nil, fmt.Errorf("bwrap: the workspace changed while the sandbox was planned: %w", err)
		}
		out = append(out, os.NewFile(uintptr(fd), o.Path))
	}
	return out, nil
}

func closePins(ps []pin) {
	for _, p := range ps {
		_ = p.f.Close()
	}
}
