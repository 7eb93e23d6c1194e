package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"strings"

	"github.com/ringfence/ringfence/outcome"
)

// WriteResult is what write_file and edit_file return.
type WriteResult struct {
	Path         string // the model path written
	Bytes        int64  // the file's new size
	Created      bool   // the file did not exist before
	Replacements int    // edit_file: how many occurrences were replaced
}

// ReasonAliased is the Reason of a denied-by-policy write refused because
// the file has another hard link (which may be outside the root).
const ReasonAliased = "hard-link"

// target is a file about to be replaced: its parent held open, its name,
// and what was there.
type target struct {
	dirfd  int
	real   string // symlink-free path of the file
	shown  string // what the model named
	exists bool
	st     sysStat
}

func (t target) close() { sysClose(t.dirfd) }

func (t target) base() string { _, b := splitRel(t.real); return b }

// WriteFile replaces (or creates) a file with content, atomically: a temp
// file in the same directory, fsync, rename over the name, fsync of the
// directory. Missing parent directories are created, each checked against
// the policy before it is made.
func (w *Workspace) WriteFile(path string, content []byte) (WriteResult, error) {
	rel, err := w.clean(path)
	if err != nil {
		return WriteResult{}, err
	}
	t, err := w.writeTarget(rel, rel, true, 0)
	if err != nil {
		return WriteResult{}, err
	}
	defer t.close()
	if err := w.replace(t, content); err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Path: w.model(rel), Bytes: int64(len(content)), Created: !t.exists}, nil
}

// writeTarget finds where rel really is and decides whether it may be
// replaced. A final link that stays beneath the root is followed once.
func (w *Workspace) writeTarget(rel, shown string, create bool, hops int) (target, error) {
	dir, base := splitRel(rel)
	dfd, realDir, err := w.openParent(dir, shown, create)
	if err != nil {
		return target{}, err
	}
	t := target{dirfd: dfd, real: joinRel(realDir, base), shown: shown}
	st, err := sysLstatAt(dfd, base)
	switch {
	case isNotExist(err) && create:
		return t, w.closeOnErr(t, w.checkFileWrite(t.real, shown))
	case err != nil:
		t.close()
		return target{}, w.lookupFailure(shown, err)
	case st.mode&fs.ModeSymlink != 0:
		t.close()
		return w.followTarget(rel, shown, create, hops)
	}
	t.exists, t.st = true, st
	if err := w.checkFileWrite(t.real, shown); err != nil {
		return target{}, w.closeOnErr(t, err)
	}
	return t, w.closeOnErr(t, w.checkReplaceable(t))
}

func (w *Workspace) followTarget(rel, shown string, create bool, hops int) (target, error) {
	if hops > 0 {
		return target{}, w.lookupFailure(shown, errLoop)
	}
	fd, real, err := w.res.resolve(rel, true)
	if err != nil {
		return target{}, w.lookupFailure(shown, err)
	}
	sysClose(fd)
	return w.writeTarget(real, shown, create, hops+1)
}

func (w *Workspace) closeOnErr(t target, err error) error {
	if err != nil {
		t.close()
	}
	return err
}

// checkReplaceable refuses what must not be replaced: a directory, a
// non-regular file, and a file with another hard link, whose other name
// may lie outside the root, unless the policy allows aliased writes.
func (w *Workspace) checkReplaceable(t target) error {
	if err := w.checkType(t.shown, t.st.mode); err != nil {
		return err
	}
	if t.st.nlink > 1 && !w.pol.AllowAliasedWrites {
		return fail(outcome.Outcome{Kind: outcome.DeniedByPolicy, Path: w.model(t.shown), Axis: "write", Reason: ReasonAliased})
	}
	return nil
}

// openParent opens dir (following links that stay inside), creating the
// missing components when create is set.
func (w *Workspace) openParent(dir, shown string, create bool) (int, string, error) {
	fd, real, err := w.res.resolve(dir, true)
	if err == nil {
		return w.mustBeDir(fd, real, shown)
	}
	if !isNotExist(err) || !create {
		return -1, "", w.lookupFailure(shown, err)
	}
	return w.makeParents(dir, shown)
}

func (w *Workspace) mustBeDir(fd int, real, shown string) (int, string, error) {
	st, err := sysFstat(fd)
	if err == nil && st.mode.IsDir() {
		return fd, real, nil
	}
	sysClose(fd)
	return -1, "", fail(outcome.Outcome{Kind: outcome.NotADirectory, Path: w.model(shown)})
}

// makeParents walks dir one component at a time from the root, creating
// each missing directory inside the one just opened, after the policy
// allowed a write there.
func (w *Workspace) makeParents(dir, shown string) (int, string, error) {
	cur, curReal := "", ""
	curFd, _, err := w.res.resolve("", true)
	if err != nil {
		return -1, "", w.lookupFailure(shown, err)
	}
	for _, c := range splitAll(dir) {
		next := joinRel(cur, c)
		fd, real, err := w.res.resolve(next, true)
		if isNotExist(err) {
			if err := w.checkWrite(joinRel(curReal, c), next); err != nil {
				sysClose(curFd)
				return -1, "", err
			}
			if err := sysMkdirAt(curFd, c); err != nil && !isExist(err) {
				sysClose(curFd)
				return -1, "", w.lookupFailure(next, err)
			}
			fd, real, err = w.res.resolve(next, true)
		}
		sysClose(curFd)
		if err != nil {
			return -1, "", w.lookupFailure(next, err)
		}
		if curFd, curReal, err = w.mustBeDir(fd, real, next); err != nil {
			return -1, "", err
		}
		cur = next
	}
	return curFd, curReal, nil
}

// replace writes content beside the target and renames it over the name,
// keeping the permission bits of the file it replaces (0644 for a new one).
func (w *Workspace) replace(t target, content []byte) error {
	perm := fs.FileMode(0o644)
	if t.exists {
		perm = t.st.mode.Perm() // set-id bits are dropped on purpose
	}
	return w.replaceWith(t, perm, w.stillSame, func(fd int) error { return sysWrite(fd, content) })
}

// replaceWith fills a temp file beside the target with fill, gives it perm,
// fsyncs it and renames it over the name after recheck accepted what the
// name holds now. The temp file is removed on every failure; a fill error
// that is an *outcome.Error is returned as it is.
func (w *Workspace) replaceWith(t target, perm fs.FileMode, recheck func(target) error, fill func(fd int) error) error {
	tmp := tempName()
	fd, err := sysCreateTemp(t.dirfd, tmp)
	if err != nil {
		return w.lookupFailure(t.shown, err)
	}
	done := false
	defer func() {
		if !done {
			sysUnlinkAt(t.dirfd, tmp)
		}
	}()
	err = fill(fd)
	if err == nil {
		err = syncedPerm(fd, perm)
	}
	sysClose(fd)
	if _, ok := outcome.Of(err); ok {
		return err
	}
	if err != nil {
		return fail(ioFailure(w.model(t.shown), "the file cannot be written"))
	}
	if err := recheck(t); err != nil {
		return err
	}
	if err := sysRenameAt(t.dirfd, tmp, t.base()); err != nil {
		return fail(ioFailure(w.model(t.shown), "the file cannot be replaced"))
	}
	done = true
	if err := sysSyncDir(t.dirfd); err != nil {
		return fail(ioFailure(w.model(t.shown), "the directory cannot be synced"))
	}
	return nil
}

// syncedPerm sets the bits after the contents are written (a mode without
// owner write must not stop the write) and makes the file durable.
func syncedPerm(fd int, perm fs.FileMode) error {
	if err := sysFchmod(fd, perm); err != nil {
		return err
	}
	return sysFsync(fd)
}

// stillSame re-checks the name just before the rename: the file it
// decided on must still be there, unaliased (or still absent).
func (w *Workspace) stillSame(t target) error {
	st, err := sysLstatAt(t.dirfd, t.base())
	switch {
	case !t.exists && isNotExist(err):
		return nil
	case err != nil || !t.exists || st.ino != t.st.ino || st.dev != t.st.dev:
		return fail(ioFailure(w.model(t.shown), changed))
	}
	t.st = st
	return w.checkReplaceable(t)
}

func tempName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return ".ringfence-" + hex.EncodeToString(b[:]) + ".tmp"
}

func splitAll(rel string) []string {
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}
