package policyfile

import (
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/ringfence/ringfence/policy"
)

// Defaults turns the file into deployment defaults for a workspace root,
// checked with policy.Defaults.Check. Relative paths are taken relative to
// root, "~" and "~/…" to f.Home. TempDir, ReadFile and Now are the
// caller's to fill.
func (f *File) Defaults(root string) (policy.Defaults, error) {
	if !strings.HasPrefix(root, "/") {
		return policy.Defaults{}, &policy.InvalidError{Field: "root", Value: root, Reason: "not an absolute path"}
	}
	root = policy.Clean(root)
	d := policy.Defaults{
		Mode:                policy.ReadOnly,
		Root:                root,
		Baseline:            policy.Read,
		Network:             f.Network.Policy(),
		ProtectGit:          f.ProtectGit,
		ExtraProtected:      f.Protected,
		ExtraProtectedNames: f.ProtectedNames,
		AllowAliasedWrites:  f.AllowAliasedWrites,
		Limits: policy.Limits{
			WallClock:    time.Duration(f.Limits.WallClock),
			MemoryBytes:  int64(f.Limits.Memory),
			Processes:    f.Limits.Processes,
			CPUTime:      time.Duration(f.Limits.CPUTime),
			ScratchBytes: int64(f.Limits.TmpSize),
		},
	}
	if f.Mode != nil {
		d.Mode = *f.Mode
	}
	if f.Baseline != nil {
		d.Baseline = *f.Baseline
	}
	for i, e := range f.Entries {
		field := "entry[" + strconv.Itoa(i) + "]"
		if e.Access == nil {
			return policy.Defaults{}, &policy.InvalidError{Field: field, Value: e.Path, Reason: "access is required"}
		}
		p, err := f.expand(field, e.Path, root)
		if err != nil {
			return policy.Defaults{}, err
		}
		d.Entries = append(d.Entries, policy.Entry{Path: p, Access: *e.Access})
	}
	for _, s := range f.UnixSockets {
		p, err := f.expand("unix socket", s, root)
		if err != nil {
			return policy.Defaults{}, err
		}
		d.UnixSockets = append(d.UnixSockets, p)
	}
	return d, d.Check()
}

// expand makes a file path absolute: "~" and "~/x" under Home, "/x" as is,
// anything else under root.
func (f *File) expand(field, p, root string) (string, error) {
	switch {
	case p == "":
		return "", &policy.InvalidError{Field: field, Reason: "path is required"}
	case strings.IndexByte(p, 0) >= 0:
		return "", &policy.InvalidError{Field: field, Value: p, Reason: "contains NUL"}
	case p == "~" || strings.HasPrefix(p, "~/"):
		if !strings.HasPrefix(f.Home, "/") {
			return "", &policy.InvalidError{Field: field, Value: p, Reason: "home directory unknown"}
		}
		return policy.Clean(f.Home + "/" + p[1:]), nil
	case strings.HasPrefix(p, "~"):
		return "", &policy.InvalidError{Field: field, Value: p, Reason: `only "~/" is expanded`}
	case strings.HasPrefix(p, "/"):
		return policy.Clean(p), nil
	}
	return policy.Clean(path.Join(root, p)), nil
}
