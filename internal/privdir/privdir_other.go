//go:build !linux

package privdir

import "os"

// Dir is a private directory held by this process.
type Dir struct{ Path string }

// Make creates a new directory prefix+random under parent. Off Linux
// there is no lock: a dead owner's directory is not swept.
func Make(parent, prefix string) (*Dir, error) {
	p, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return nil, err
	}
	return &Dir{Path: p}, nil
}

// Close removes the directory.
func (d *Dir) Close() error { return d.CloseWith(nil) }

// CloseWith is Close with remove (nil: os.RemoveAll) doing the removal.
func (d *Dir) CloseWith(remove func(string) error) error {
	if d == nil || d.Path == "" {
		return nil
	}
	if remove == nil {
		remove = os.RemoveAll
	}
	err := remove(d.Path)
	d.Path = ""
	return err
}

// Sweep does nothing off Linux.
func Sweep(parent, prefix string, remove func(string) error) []string { return nil }
