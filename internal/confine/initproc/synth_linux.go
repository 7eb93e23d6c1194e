package initproc

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// rootEntry is one top-level entry of the host's root, captured before the
// view is attached (attaching at a staging directory hides that entry).
type rootEntry struct {
	name string
	link string // the target of a symbolic link, recreated as is
	fd   int    // a detached read-only clone of a directory or file, else -1
	dir  bool
}

// cloneRootEntries clones every directory and file directly under the
// host's root, read-only, and reads every link there. Sockets, devices
// and fifos at the top level are left out: nothing a command needs lives
// there.
func cloneRootEntries() ([]rootEntry, error) {
	ents, err := os.ReadDir("/")
	if err != nil {
		return nil, fmt.Errorf("listing the root: %w", err)
	}
	var out []rootEntry
	for _, de := range ents {
		e := rootEntry{name: de.Name(), fd: -1}
		p := "/" + e.name
		switch t := de.Type(); {
		case t&os.ModeSymlink != 0:
			if e.link, err = os.Readlink(p); err != nil {
				closeEntries(out)
				return nil, err
			}
		case t.IsDir() || t.IsRegular():
			e.dir = t.IsDir()
			e.fd, err = unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
			if errors.Is(err, unix.ENOENT) {
				continue // gone since it was listed
			}
			if err == nil {
				err = setattr(e.fd, true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
			}
			if err != nil {
				if e.fd >= 0 {
					unix.Close(e.fd)
				}
				closeEntries(out)
				return nil, fmt.Errorf("cloning %s: %w", p, err)
			}
		default:
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func closeEntries(es []rootEntry) {
	for _, e := range es {
		if e.fd >= 0 {
			unix.Close(e.fd)
		}
	}
}

// fillRoot places the captured entries in the view's (tmpfs) root. The
// root is ours, so mountpoints missing on the host can be made in it.
func (vw *view) fillRoot(es []rootEntry) error {
	for _, e := range es {
		if e.fd < 0 {
			if err := unix.Symlinkat(e.link, vw.root, e.name); err != nil {
				return fmt.Errorf("link /%s: %w", e.name, err)
			}
			continue
		}
		if err := makeNode(vw.root, e.name, e.dir); err != nil {
			return fmt.Errorf("mountpoint /%s: %w", e.name, err)
		}
		if err := unix.MoveMount(e.fd, "", vw.root, e.name, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("attaching /%s: %w", e.name, err)
		}
	}
	return nil
}
