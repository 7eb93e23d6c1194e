package workspace

import (
	"github.com/ringfence/ringfence/outcome"
)

// Details of the invalid-arguments outcomes Remove returns, so a caller
// can tell them apart (a file server answers both with a conflict).
const (
	DetailNotEmpty = "the directory is not empty; remove it recursively"
	DetailRoot     = "the workspace root itself is never removed; remove its contents recursively"
	DetailTooDeep  = "the tree is nested too deeply to remove"
)

// maxRemoveDepth bounds a recursive removal: each level holds a descriptor
// open, and a command can nest directories far deeper than any tool needs.
const maxRemoveDepth = 512

// Remove removes a file, link or directory beneath the root. A final link
// is removed itself, never followed; links before it that stay beneath the
// root are. Every name removed must be writable under the policy (and not
// protected by name). A directory with entries is refused unless
// recursive; the root itself is never removed, only emptied (recursive).
//
// A recursive removal checks the whole tree first and removes nothing when
// any name in it is refused, then removes it depth first, checking each
// name again as it goes (a name planted between the two passes stops the
// removal there). Directories are opened O_NOFOLLOW relative to their
// parent's descriptor, so a directory swapped for a link is never entered.
func (w *Workspace) Remove(path string, recursive bool) error {
	rel, err := w.cleanScope(path)
	if err != nil {
		return err
	}
	if rel == "" {
		return w.clearRoot(recursive)
	}
	dir, base := splitRel(rel)
	dfd, realDir, err := w.res.resolve(dir, true)
	if err != nil {
		return w.lookupFailure(rel, err)
	}
	if dfd, realDir, err = w.mustBeDir(dfd, realDir, rel); err != nil {
		return err
	}
	defer sysClose(dfd)
	st, err := sysLstatAt(dfd, base)
	if err != nil {
		return w.lookupFailure(rel, err)
	}
	real := joinRel(realDir, base)
	if err := w.checkWrite(real, rel); err != nil {
		return err
	}
	if !st.mode.IsDir() {
		return w.unlink(dfd, base, false, rel)
	}
	if recursive {
		if err := w.removeTree(dfd, base, real, rel, true, 0); err != nil {
			return err
		}
		return w.removeTree(dfd, base, real, rel, false, 0)
	}
	return w.unlink(dfd, base, true, rel)
}

func (w *Workspace) clearRoot(recursive bool) error {
	if !recursive {
		return fail(outcome.Outcome{Kind: outcome.InvalidArguments, Path: w.model(""), Detail: DetailRoot})
	}
	fd, err := w.res.sysOpenDirRead("")
	if err != nil {
		return w.lookupFailure("", err)
	}
	defer sysClose(fd)
	if err := w.removeChildren(fd, "", "", true, 0); err != nil {
		return err
	}
	return w.removeChildren(fd, "", "", false, 0)
}

// removeTree removes (or with dry, only checks) the directory name in
// parentfd and everything beneath it.
func (w *Workspace) removeTree(parentfd int, name, real, shown string, dry bool, depth int) error {
	if depth >= maxRemoveDepth {
		return fail(outcome.Outcome{Kind: outcome.InvalidArguments, Path: w.model(shown), Detail: DetailTooDeep})
	}
	fd, err := sysOpenDirAt(parentfd, name)
	if err != nil {
		return w.raceOr(shown, err)
	}
	err = w.removeChildren(fd, real, shown, dry, depth)
	sysClose(fd)
	if err != nil || dry {
		return err
	}
	return w.unlink(parentfd, name, true, shown)
}

// maxDirNames bounds the names of one directory a removal reads at once.
const maxDirNames = 1 << 20

func (w *Workspace) removeChildren(fd int, real, shown string, dry bool, depth int) error {
	names, more, err := sysReadNames(fd, maxDirNames)
	if err != nil || more {
		return fail(ioFailure(w.model(shown), "the directory cannot be read"))
	}
	for _, c := range names {
		creal, cshown := joinRel(real, c), joinRel(shown, c)
		if err := w.checkWrite(creal, cshown); err != nil {
			return err
		}
		st, err := sysLstatAt(fd, c)
		switch {
		case isNotExist(err):
			continue // gone already
		case err != nil:
			return w.lookupFailure(cshown, err)
		case st.mode.IsDir():
			err = w.removeTree(fd, c, creal, cshown, dry, depth+1)
		case !dry:
			if err = w.unlink(fd, c, false, cshown); isGone(err) {
				err = nil
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func isGone(err error) bool {
	o, ok := outcome.Of(err)
	return ok && o.Kind == outcome.NotFound
}

// unlink removes one name.
func (w *Workspace) unlink(dirfd int, name string, dir bool, shown string) error {
	err := sysUnlinkAtErr(dirfd, name, dir)
	switch {
	case err == nil:
		return nil
	case dir && isNotEmpty(err):
		return fail(outcome.Outcome{Kind: outcome.InvalidArguments, Path: w.model(shown), Detail: DetailNotEmpty})
	}
	return w.lookupFailure(shown, err)
}
