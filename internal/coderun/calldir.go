package coderun

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// callDir is one call's directory in the sandbox's private temp area:
// the code, inputs/ and outputs/. root is opened before the command runs
// and used after it, so a command that renames the directory aside and
// plants a link in its place changes nothing the runner reads.
type callDir struct {
	path string
	root *os.Root
}

// Modes: the code and the inputs are read-only files (the policy's
// read-only restriction is what holds; the mode is a second, weaker
// fence for an unconfined run). Directories stay 0755 so that the
// runner can always remove them.
const (
	fileMode = 0o444
	dirMode  = 0o755
)

func newCallDir(scratch string) (*callDir, error) {
	p, err := os.MkdirTemp(scratch, "run-")
	if err != nil {
		return nil, err
	}
	c := &callDir{path: p}
	if c.root, err = os.OpenRoot(p); err != nil {
		os.RemoveAll(p)
		return nil, err
	}
	for _, d := range []string{InputsDir, OutputsDir} {
		if err := c.root.Mkdir(d, dirMode); err != nil {
			c.remove()
			return nil, err
		}
	}
	return c, nil
}

func (c *callDir) host(name string) string { return filepath.Join(c.path, filepath.FromSlash(name)) }

// stage writes every input and the manifest, each created exclusively.
func (c *callDir) stage(files []staged, manifest []byte) error {
	for _, f := range files {
		name := path.Join(InputsDir, f.name)
		if err := c.root.MkdirAll(path.Dir(name), dirMode); err != nil {
			return err
		}
		if err := c.create(name, f.data); err != nil {
			return err
		}
	}
	return c.create(path.Join(InputsDir, ManifestName), manifest)
}

func (c *callDir) create(name string, data []byte) error {
	f, err := c.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// remove deletes the call directory, whatever the command left in it:
// directories it made unwritable are made writable first (the walk does
// not follow links, and the command has stopped by now).
func (c *callDir) remove() error {
	if c.root != nil {
		c.root.Close()
	}
	if err := os.RemoveAll(c.path); err == nil {
		return nil
	}
	filepath.WalkDir(c.path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(c.path)
}
