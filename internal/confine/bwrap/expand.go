package bwrap

import (
	"path"
	"strconv"

	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/policy"
)

// Entry is one directory entry, as ListFunc reports it.
type Entry struct {
	Name   string
	Kind   Kind   // Dir or File; for a symbolic link, the kind is Link
	Target string // for a link: what it points to
}

// Link is the Kind of a symbolic link in a directory listing.
const Link Kind = 3

// ListFunc lists a host directory without following links in it.
type ListFunc func(dir string) ([]Entry, error)

// missingCarves are the read-only or denied layers under the writable
// root w that do not exist on the host and whose nearest enclosing layer
// is w itself (viewplan.Plan.Within): the command could create them, and
// no mount can cover a path that does not exist.
func missingCarves(vp *viewplan.Plan, w string, stat StatFunc) ([]string, error) {
	return vp.Within(w, func(path string) (bool, error) {
		kind, err := stat(path)
		return kind == Missing, err
	})
}

// expand grants the writable directory dir around carves that do not
// exist yet, the way the native backend's Landlock expansion does: dir
// becomes a read-only tmpfs holding every host entry bound back
// read-write (links recreated as links), except the entries leading to a
// carve-out, which are expanded in turn, and the carve-outs themselves,
// which are left absent. Nothing can then be created directly in dir or
// in a directory on the way, so a missing carve-out cannot appear, and
// nothing is created on the host.
func (v *view) expand(dir string, carves []string, list ListFunc) error {
	entries, err := list(dir)
	if err != nil {
		return err
	}
	v.set(dir, hostRW, "--tmpfs", dir)
	v.remount = append(v.remount, dir)
	for _, e := range entries {
		child := path.Join(dir, e.Name)
		switch {
		case containsAny(carves, child) && e.Kind == Dir && !isAny(carves, child):
			if err := v.expand(child, carves, list); err != nil {
				return err
			}
		case containsAny(carves, child):
			// a carve-out itself (a dangling link, say), or a link or
			// file on the way to one: left out, so it cannot be created
		case e.Kind == Link:
			v.args = append(v.args, "--symlink", e.Target, child)
		default:
			v.bindEntry(child, e.Kind == Dir)
		}
	}
	for _, c := range carves {
		v.protected[c] = true
	}
	return nil
}

// containsAny: some carve-out is child or lies beneath it.
func containsAny(carves []string, child string) bool {
	for _, c := range carves {
		if policy.Contains(child, c) {
			return true
		}
	}
	return false
}

func isAny(carves []string, child string) bool {
	for _, c := range carves {
		if c == child {
			return true
		}
	}
	return false
}

// Open is an entry of an expanded root the caller must open, without
// following a link, as the next descriptor from ArgOptions.OpenFDBase.
type Open struct {
	Path string
	Dir  bool // it was a directory when listed (else a file of any other kind)
}

// bindEntry binds an expanded root's entry back read-write. bwrap binding
// it by path would follow a link swapped in after it was listed (by a
// command running in the same workspace) and could bind a host file or
// directory read-write; from a descriptor opened without following links
// it is always the entry itself, and if the entry changed the run fails.
func (v *view) bindEntry(path string, dir bool) {
	if v.fdBase <= 0 {
		v.set(path, hostRW, "--bind", path, path)
		return
	}
	fd := v.fdBase + len(v.opens)
	v.opens = append(v.opens, Open{Path: path, Dir: dir})
	v.set(path, hostRW, "--bind-fd", strconv.Itoa(fd), path)
}
