package procsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence/pathrule"
)

// TooLargeError is a read refused because the file exceeds the bound.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("procsandbox: %s is larger than %d bytes", e.Path, e.Max)
}

// ReadFile reads a model path beneath the root, refusing a file larger
// than maxBytes (never cutting it).
func (s *Sandbox) ReadFile(_ context.Context, path string, maxBytes int64) ([]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("procsandbox: read bound %d: must be positive", maxBytes)
	}
	host, err := s.resolve(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(host)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, &TooLargeError{Path: path, Max: maxBytes}
	}
	return data, nil
}

// WriteFile writes a model path beneath the root atomically: a temp file
// in the same directory, renamed over the name. A link at the name is
// replaced, never written through.
func (s *Sandbox) WriteFile(_ context.Context, path string, data []byte) error {
	if err := s.check(); err != nil {
		return err
	}
	clean, err := pathrule.Clean(path)
	if err != nil {
		return err
	}
	parent := filepath.Join(s.root, filepath.Dir(clean))
	if err := s.beneath(path, parent); err != nil {
		return err
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if err := s.beneath(path, parent); err != nil { // what MkdirAll met
		return err
	}
	return atomicWrite(parent, filepath.Join(s.root, clean), data)
}

func atomicWrite(dir, dst string, data []byte) error {
	f, err := os.CreateTemp(dir, ".procsandbox-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// resolve turns a model path into a host path beneath the root, links
// resolved, refusing one that leads out.
func (s *Sandbox) resolve(path string) (string, error) {
	clean, err := pathrule.Clean(path)
	if err != nil {
		return "", err
	}
	host := filepath.Join(s.root, clean)
	if err := s.beneath(path, host); err != nil {
		return "", err
	}
	return host, nil
}

// beneath refuses host when its longest existing prefix resolves, through
// links, to somewhere outside the root.
func (s *Sandbox) beneath(model, host string) error {
	for p := host; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) && p != s.root {
			if _, lerr := os.Lstat(p); lerr == nil { // a dangling link
				return &pathrule.Error{Path: model, Reason: pathrule.Escape}
			}
			continue
		}
		if err != nil {
			return err
		}
		if real != s.root && !strings.HasPrefix(real, s.root+string(filepath.Separator)) {
			return &pathrule.Error{Path: model, Reason: pathrule.Escape}
		}
		return nil
	}
}

func canonical(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}
