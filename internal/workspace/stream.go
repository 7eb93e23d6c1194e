package workspace

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// The operations a file server needs beside the model's tools: a read that
// streams instead of holding the file, a listing with sizes and times, a
// write from a stream with the caller's permission bits, and removal. They
// go through the same fence as the tools: the lookup beneath the root, the
// policy at the real location, the type checks, the hard-link rule.

// Info is what a listing shows of one name, or what Open found.
type Info struct {
	Name    string // the entry's own name ("" for Open)
	Path    string // the model path
	Dir     bool
	Regular bool
	Size    int64
	Perm    fs.FileMode // permission bits only
	ModTime time.Time
	Links   uint64 // hard links to the inode
}

func infoOf(name, model string, st sysStat) Info {
	return Info{Name: name, Path: model, Dir: st.mode.IsDir(), Regular: st.mode.IsRegular(),
		Size: st.size, Perm: st.mode.Perm(), ModTime: time.Unix(0, st.mtime), Links: st.nlink}
}

// Open opens a regular file beneath the root for a streamed read: the same
// road as ReadFile (policy at the real location, a fifo or device never
// opened) without a bound, since the bytes are copied out, never held. The
// root or a directory is is-a-directory. The caller closes the file.
func (w *Workspace) Open(path string) (*os.File, Info, error) {
	rel, err := w.cleanScope(path)
	if err != nil {
		return nil, Info{}, err
	}
	if rel == "" {
		return nil, Info{}, fail(outcome.Outcome{Kind: outcome.IsADirectory, Path: w.model("")})
	}
	// A file replaced by a concurrent writer between the lookup and the
	// open is a race, not a refusal: look again, a few times, so a reader
	// gets the old file or the new one as rename(2) promises.
	f, err := w.openRegular(rel)
	for i := 0; i < 8 && isRace(err); i++ {
		f, err = w.openRegular(rel)
	}
	if err != nil {
		return nil, Info{}, err
	}
	return os.NewFile(uintptr(f.fd), w.model(f.rel)), infoOf("", w.model(f.rel), f.st), nil
}

func isRace(err error) bool {
	o, ok := outcome.Of(err)
	return ok && o.Kind == outcome.IOFailure && o.Detail == changed
}

// Listing is a directory's direct children, sorted by name.
type Listing struct {
	Path    string // the model path of the directory
	Entries []Info
	// Limited is a scope-limited outcome when more than max entries were
	// there; Entries then holds the first max read.
	Limited *outcome.Outcome
}

// ReadDir lists the direct children of a directory (the root for "", "."
// or the mount path), at most max of them. A link is shown as what it
// leads to when that stays beneath the root and is readable, and left out
// otherwise (a link out, a broken link, a loop); what the policy denies is
// left out, as walks do. Other types (fifos, sockets, devices) are listed
// as they are: Regular and Dir both false.
func (w *Workspace) ReadDir(path string, max int) (Listing, error) {
	if max <= 0 {
		return Listing{}, usage("ReadDir needs a positive bound")
	}
	rel, real, st, err := w.openBase(path)
	if err != nil {
		return Listing{}, err
	}
	if !st.mode.IsDir() {
		return Listing{}, fail(outcome.Outcome{Kind: outcome.NotADirectory, Path: w.model(rel)})
	}
	fd, err := w.res.sysOpenDirRead(real)
	if err != nil {
		return Listing{}, w.raceOr(rel, err)
	}
	defer sysClose(fd)
	names, more, err := sysReadNames(fd, max)
	if err != nil {
		return Listing{}, fail(ioFailure(w.model(rel), "the directory cannot be read"))
	}
	out := Listing{Path: w.model(rel), Entries: make([]Info, 0, len(names))}
	for _, name := range names {
		if e, ok := w.dirEntry(fd, real, rel, name); ok {
			out.Entries = append(out.Entries, e)
		}
	}
	sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Name < out.Entries[j].Name })
	if more {
		out.Limited = &outcome.Outcome{Kind: outcome.ScopeLimited, Path: w.model(rel), Bound: "entries",
			Limit: int64(max), Shown: len(out.Entries)}
	}
	return out, nil
}

// dirEntry is one child of an open directory, or false when it is not to
// be shown.
func (w *Workspace) dirEntry(dirfd int, realDir, rel, name string) (Info, bool) {
	erel := joinRel(realDir, name)
	st, err := sysLstatAt(dirfd, name)
	if err != nil || !w.readable(erel, st.mode.IsDir()) {
		return Info{}, false
	}
	if st.mode&fs.ModeSymlink != 0 {
		lfd, target, err := w.res.resolve(erel, true)
		if err != nil {
			return Info{}, false
		}
		st, err = sysFstat(lfd)
		sysClose(lfd)
		if err != nil || w.checkRead(target, target) != nil {
			return Info{}, false
		}
	}
	return infoOf(name, w.model(joinRel(rel, name)), st), true
}

// StreamOptions shapes WriteStream.
type StreamOptions struct {
	// Perm are the new file's permission bits, applied as given (0 is a
	// valid mode); bits beyond 0777 are dropped.
	Perm fs.FileMode
	// MaxBytes is required and positive: a stream longer than it is
	// refused (over-budget) and nothing is replaced.
	MaxBytes int64
}

// WriteStream replaces (or creates) a file with what r yields, atomically
// as WriteFile does: parents made after the policy allowed each, the temp
// file filled, fsynced and renamed over the name after the name was
// re-checked, and removed on every failure. An error from r is returned
// wrapped in an io-failure *outcome.Error (DetailSource), so callers can tell a
// broken upload from a broken disk.
func (w *Workspace) WriteStream(path string, r io.Reader, opts StreamOptions) (WriteResult, error) {
	if opts.MaxBytes <= 0 {
		return WriteResult{}, usage("StreamOptions.MaxBytes must be positive")
	}
	rel, err := w.cleanScope(path)
	if err != nil {
		return WriteResult{}, err
	}
	if rel == "" {
		return WriteResult{}, fail(outcome.Outcome{Kind: outcome.IsADirectory, Path: w.model("")})
	}
	// The name as given is checked before any parent is made, so a
	// refused name (sub/dir/.envrc) leaves no directories behind; it is
	// checked again where it really is once the links are resolved.
	if err := w.checkFileWrite(rel, rel); err != nil {
		return WriteResult{}, err
	}
	t, err := w.writeTarget(rel, rel, true, 0)
	if err != nil {
		return WriteResult{}, err
	}
	defer t.close()
	var n int64
	err = w.replaceWith(t, opts.Perm.Perm(), w.stillReplaceable, func(fd int) error {
		var err error
		n, err = w.copyBounded(fd, r, opts.MaxBytes, rel)
		return err
	})
	if err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Path: w.model(rel), Bytes: n, Created: !t.exists}, nil
}

// stillReplaceable re-checks the name just before the rename, as a file
// server's "last write wins" needs: a concurrent writer or deleter may
// have replaced or removed it since, which is fine, but what is there now
// must still be absent or a regular file without another hard link (a
// link, a directory or an aliased file swapped in refuses the write).
func (w *Workspace) stillReplaceable(t target) error {
	st, err := sysLstatAt(t.dirfd, t.base())
	switch {
	case isNotExist(err):
		return nil
	case err != nil:
		return fail(ioFailure(w.model(t.shown), changed))
	}
	t.exists, t.st = true, st
	return w.checkReplaceable(t)
}

// DetailSource is the Detail of the io-failure WriteStream returns when
// its reader failed (an upload cut short), not the file system.
const DetailSource = "the data to write could not be read"

func (w *Workspace) copyBounded(fd int, r io.Reader, limit int64, rel string) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	for {
		k, rerr := r.Read(buf)
		if k > 0 {
			if n += int64(k); n > limit {
				return n, w.overBudget(rel, limit, n)
			}
			if err := sysWrite(fd, buf[:k]); err != nil {
				return n, err
			}
		}
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
		if rerr != nil {
			return n, fail(ioFailure(w.model(rel), DetailSource))
		}
	}
}

// Root is the host path of the workspace root (the policy's root).
func (w *Workspace) Root() string { return w.pol.Root }

// Policy is the resolved policy this workspace enforces.
func (w *Workspace) Policy() *policy.Policy { return w.pol }
