package privdir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is a private directory held by this process.
type Dir struct {
	Path string
	lock *os.File
}

// Make creates a new directory prefix+"L"+random under parent (mode 0700),
// locked for this process's life. Close removes it.
func Make(parent, prefix string) (*Dir, error) {
	tmp, err := os.MkdirTemp(parent, staging(prefix))
	if err != nil {
		return nil, err
	}
	lock, err := lockDir(tmp, false)
	if err != nil {
		_ = os.Remove(tmp)
		return nil, err
	}
	final, err := publish(tmp, parent, prefix)
	if err != nil {
		lock.Close()
		_ = os.Remove(tmp)
		return nil, err
	}
	return &Dir{Path: final, lock: lock}, nil
}

// publish renames the staging directory tmp to a final name drawn afresh,
// never replacing an entry. The final name must not be derived from the
// staging one: that is visible in a shared parent the moment it exists,
// and another user who planted a link or a directory at the derived name
// made every rename fail (ENOTDIR, ENOTEMPTY, EPERM in a sticky parent) —
// ringfence runs refused at will.
func publish(tmp, parent, prefix string) (string, error) {
	var err error
	for range 8 {
		var b [12]byte
		if _, err = rand.Read(b[:]); err != nil {
			return "", err
		}
		final := filepath.Join(parent, prefix+lockTag+hex.EncodeToString(b[:]))
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, final, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EINVAL) {
			// A filesystem without RENAME_NOREPLACE: the name is
			// unguessable, so a plain rename meets nothing there.
			err = os.Rename(tmp, final)
		}
		if err == nil {
			return final, nil
		}
		if !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	return "", fmt.Errorf("privdir: publish %s: %w", tmp, err)
}

// Close removes the directory and releases its lock. Safe to call twice.
func (d *Dir) Close() error { return d.CloseWith(nil) }

// CloseWith is Close with remove (nil: os.RemoveAll) doing the removal,
// for a directory os.RemoveAll cannot empty (an overlay's mode-000 work
// directory).
func (d *Dir) CloseWith(remove func(string) error) error {
	if d == nil || d.lock == nil {
		return nil
	}
	if remove == nil {
		remove = os.RemoveAll
	}
	err := remove(d.Path)
	d.lock.Close()
	d.lock = nil
	return err
}

// lockDir opens dir (never through a link), checks that this user owns
// it, and takes its exclusive lock; nonblocking fails with EWOULDBLOCK
// when a live process holds it.
func lockDir(dir string, nonblocking bool) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), dir)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, err
	}
	if int(st.Uid) != os.Geteuid() {
		f.Close()
		return nil, errNotOurs
	}
	how := unix.LOCK_EX
	if nonblocking {
		how |= unix.LOCK_NB
	}
	for {
		err = unix.Flock(fd, how)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

var errNotOurs = errors.New("privdir: owned by another user")

// Sweep removes the directories of prefix under parent whose owner is
// gone (see the package doc) with remove (nil: os.RemoveAll) and returns
// their paths.
func Sweep(parent, prefix string, remove func(string) error) []string {
	if remove == nil {
		remove = os.RemoveAll
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		info, err := e.Info()
		if err != nil || !candidate(e.Name(), prefix, time.Since(info.ModTime())) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		lock, err := lockDir(p, true)
		if err != nil {
			continue // in use, not ours, or gone
		}
		if remove(p) == nil {
			removed = append(removed, p)
		}
		lock.Close()
	}
	return removed
}
