package workspace

import (
	"io/fs"

	"github.com/ringfence/ringfence/outcome"
)

// opened is a regular file beneath the root, open for reading, whose real
// location the policy allowed.
type opened struct {
	fd   int
	st   sysStat
	rel  string // what the model named, cleaned
	real string // where it really is, symlink-free
}

func (o opened) close() { sysClose(o.fd) }

// openRegular is the one road to a file's contents: the model-path rule,
// the lookup beneath the root, the policy at the real location, the type
// check on an O_PATH descriptor (so a fifo or a device is never opened),
// then the open for reading, which must reach the same inode.
func (w *Workspace) openRegular(path string) (opened, error) {
	rel, err := w.clean(path)
	if err != nil {
		return opened{}, err
	}
	pfd, real, err := w.res.resolve(rel, true)
	if err != nil {
		return opened{}, w.lookupFailure(rel, err)
	}
	defer sysClose(pfd)
	if err := w.checkRead(real, rel); err != nil {
		return opened{}, err
	}
	st, err := sysFstat(pfd)
	if err != nil {
		return opened{}, fail(ioFailure(w.model(rel), "the file cannot be inspected"))
	}
	if err := w.checkType(rel, st.mode); err != nil {
		return opened{}, err
	}
	fd, err := w.res.sysOpenRead(real)
	if err != nil {
		return opened{}, w.raceOr(rel, err)
	}
	st2, err := sysFstat(fd)
	if err != nil || st2.dev != st.dev || st2.ino != st.ino || !st2.mode.IsRegular() {
		sysClose(fd)
		return opened{}, fail(ioFailure(w.model(rel), changed))
	}
	return opened{fd: fd, st: st2, rel: rel, real: real}, nil
}

const changed = "the file changed during the call"

// raceOr reports a failure to reopen what was just resolved: a vanished
// file is not-found; a link or a directory swapped in is a race.
func (w *Workspace) raceOr(rel string, err error) error {
	if isNotExist(err) {
		return w.lookupFailure(rel, err)
	}
	return fail(ioFailure(w.model(rel), changed))
}

func (w *Workspace) checkType(rel string, mode fs.FileMode) error {
	switch {
	case mode.IsRegular():
		return nil
	case mode.IsDir():
		return fail(outcome.Outcome{Kind: outcome.IsADirectory, Path: w.model(rel)})
	}
	return fail(outcome.Outcome{Kind: outcome.NotARegularFile, Path: w.model(rel), FileType: fileType(mode)})
}

// fileType names a non-regular file for the not-a-regular-file outcome.
func fileType(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		return "symlink"
	case mode&fs.ModeNamedPipe != 0:
		return "fifo"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeCharDevice != 0:
		return "char-device"
	case mode&fs.ModeDevice != 0:
		return "block-device"
	case mode.IsDir():
		return "directory"
	case mode.IsRegular():
		return "file"
	}
	return "other"
}
