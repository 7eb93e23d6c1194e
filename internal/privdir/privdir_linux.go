package privdir

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
//
// It reads parent's names in one getdents pass and looks at no entry whose
// name lacks the prefix: the parent is usually /tmp, hundreds of entries,
// and an lstat of each was 5% of a `ringfence run`'s CPU (issue 16). Only a
// staging leftover needs its age (an lstat); a final name is judged by its
// lock alone.
func Sweep(parent, prefix string, remove func(string) error) []string {
	if remove == nil {
		remove = os.RemoveAll
	}
	names, err := namesWithPrefix(parent, []string{prefix + lockTag, staging(prefix)})
	if err != nil {
		return nil
	}
	var removed []string
	for _, name := range names {
		p := filepath.Join(parent, name)
		var age time.Duration
		if strings.HasPrefix(name, staging(prefix)) {
			var st unix.Stat_t
			if unix.Lstat(p, &st) != nil {
				continue
			}
			age = time.Since(time.Unix(st.Mtim.Unix()))
		}
		if !candidate(name, prefix, age) {
			continue
		}
		lock, err := lockDir(p, true) // a directory, not a link, ours, free
		if err != nil {
			continue // in use, not ours, not a directory, or gone
		}
		if remove(p) == nil {
			removed = append(removed, p)
		}
		lock.Close()
	}
	return removed
}

// namesWithPrefix returns the names in dir that start with one of
// prefixes and may be directories (the entry's type is a directory or
// unknown), reading the directory with getdents and making a string only
// of a match.
func namesWithPrefix(dir string, prefixes []string) ([]string, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var names []string
	buf := make([]byte, direntBuf)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		names = appendMatches(names, buf[:n], prefixes)
	}
}

// direntBuf is the getdents buffer: one call reads a /tmp of a few hundred
// entries.
var direntBuf = 32 << 10

// appendMatches parses linux_dirent64 records (ino u64, off s64, reclen
// u16, type u8, name NUL-terminated) and appends the names that match.
func appendMatches(names []string, b []byte, prefixes []string) []string {
	const nameOff = 19
	for len(b) >= nameOff {
		reclen := int(b[16]) | int(b[17])<<8
		if reclen < nameOff || reclen > len(b) {
			break // malformed: the kernel never does this
		}
		rec, typ := b[nameOff:reclen], b[18]
		b = b[reclen:]
		if typ != unix.DT_DIR && typ != unix.DT_UNKNOWN {
			continue
		}
		if i := bytes.IndexByte(rec, 0); i >= 0 {
			rec = rec[:i]
		}
		for _, p := range prefixes {
			if len(rec) >= len(p) && string(rec[:len(p)]) == p { // no allocation
				names = append(names, string(rec))
				break
			}
		}
	}
	return names
}
