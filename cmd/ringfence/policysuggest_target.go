package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// policyTarget is the policy file `policy suggest` reads and --apply
// replaces, held by its directory. The directory is opened once; the read,
// the re-read before writing, the temp file and the rename all go through
// that descriptor. A directory on the way that a sandboxed command swaps
// for a link (it may do that to any directory of the workspace, while a
// session runs, in a renameat2 exchange loop) therefore cannot move the
// write somewhere else (the user's own policy in the config directory),
// and the path shown to the person is where the directory really is.
type policyTarget struct {
	path string // the directory's real path (Linux: the kernel's name of the open descriptor) and the name
	base string
	dir  *os.File
	root *os.Root
}

// openPolicyTarget opens the directory of p (an absolute path).
func openPolicyTarget(p string) (*policyTarget, error) {
	dirName, base := filepath.Dir(p), filepath.Base(p)
	d, err := os.Open(dirName)
	if err != nil {
		return nil, err
	}
	if fi, err := d.Stat(); err != nil || !fi.IsDir() {
		d.Close()
		return nil, fmt.Errorf("%s: not a directory", dirName)
	}
	real, at := dirName, dirName
	if runtime.GOOS == "linux" {
		// Where the descriptor really is, and a root opened on the same
		// directory through it (never through the name again).
		at = "/proc/self/fd/" + strconv.Itoa(int(d.Fd()))
		if real, err = os.Readlink(at); err != nil || !filepath.IsAbs(real) {
			d.Close()
			return nil, fmt.Errorf("%s: where the directory is cannot be told: %v", dirName, err)
		}
	}
	r, err := os.OpenRoot(at)
	if err != nil {
		d.Close()
		return nil, err
	}
	return &policyTarget{path: filepath.Join(real, base), base: base, dir: d, root: r}, nil
}

func (t *policyTarget) Close() {
	t.root.Close()
	t.dir.Close()
}

// maxPolicyText bounds the file read (policyfile refuses more than 1 MiB).
const maxPolicyText = 1 << 20

// read reads the policy file's bytes; a missing file is not an error.
// Anything but a regular file (a link, a FIFO) is refused: --apply would
// write through it.
func (t *policyTarget) read() ([]byte, bool, error) {
	fi, err := t.root.Lstat(t.base)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s: not a regular file (a link or device is not edited)", t.path)
	}
	f, err := t.root.Open(t.base)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s: not a regular file (a link or device is not edited)", t.path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPolicyText+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) > maxPolicyText {
		return nil, false, fmt.Errorf("%s: larger than 1 MiB", t.path)
	}
	return b, true, nil
}

// write replaces the file with text atomically (a temp file in the same
// directory, renamed over it), keeping its mode, and only if it still
// holds exactly the bytes the plan was made from.
func (t *policyTarget) write(was []byte, existed bool, text string) error {
	now, exists, err := t.read()
	if err != nil {
		return err
	}
	if exists != existed || string(now) != string(was) {
		return fmt.Errorf("%s changed while the suggestion was made; nothing written, run suggest again", t.path)
	}
	mode := os.FileMode(0o644)
	if fi, err := t.root.Lstat(t.base); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmpName := ".ringfence-suggest-" + hex.EncodeToString(rnd[:])
	tmp, err := t.root.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer t.root.Remove(tmpName) // nothing left once renamed
	_, err = tmp.WriteString(text)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.root.Rename(tmpName, t.base)
	}
	return err
}
