package workspace

import (
	"errors"
	"strings"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// The default bounds of a walk (list, glob, grep).
const (
	DefaultMaxEntries   = 2_000_000 // directory entries one walk visits (a time guard, named when hit)
	DefaultMaxFileBytes = 64 << 20  // grep skips larger files, and says so
	DefaultMaxLineChars = 2_000     // characters of one line shown
	DefaultMaxEditBytes = 16 << 20  // largest file edit_file rewrites
	DefaultMaxPageBytes = 64 << 10  // output bytes of one page of glob or grep results
)

// Options configures a Workspace. Zero fields take the defaults above.
type Options struct {
	// MountPath is where the model sees the root ("/workspace").
	MountPath  string
	MaxEntries int
	// MaxReadBytes, when positive, bounds the bytes one grep reads (named
	// when hit). Zero reads everything: the budget is on output (pages).
	MaxReadBytes int64
	MaxFileBytes int64
	MaxLineChars int
	// MaxMatches, when positive, caps the matching lines of one grep page
	// (a caller's own limit may be lower). Zero: pages end on bytes only.
	MaxMatches   int
	MaxEditBytes int64
	MaxResults   int // entries list_files returns
	// MaxPageBytes bounds the output of one page of glob or grep results
	// (paths and lines as shown); the rest is reached with a cursor.
	MaxPageBytes int
	// Workers bounds the walker's goroutines; zero means GOMAXPROCS.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.MountPath == "" {
		o.MountPath = outcome.DefaultMountPath
	}
	o.MountPath = "/" + strings.Trim(o.MountPath, "/")
	setInt(&o.MaxEntries, DefaultMaxEntries)
	setInt64(&o.MaxFileBytes, DefaultMaxFileBytes)
	setInt(&o.MaxLineChars, DefaultMaxLineChars)
	setInt(&o.MaxPageBytes, DefaultMaxPageBytes)
	setInt64(&o.MaxEditBytes, DefaultMaxEditBytes)
	return o
}

func setInt(p *int, def int) {
	if *p <= 0 {
		*p = def
	}
}

func setInt64(p *int64, def int64) {
	if *p <= 0 {
		*p = def
	}
}

// Workspace is the file operations beneath one policy's root. It is safe
// for concurrent use; Close releases the root descriptor.
type Workspace struct {
	pol  *policy.Policy
	opts Options
	res  *resolver
}

// ErrUsage marks a programming error in a call (a missing bound, a nil
// policy): never the model's doing, so never an outcome.
var ErrUsage = errors.New("workspace: invalid call")

// ErrUnsupported: this platform has no beneath-the-root lookup.
var ErrUnsupported = errors.New("workspace: unsupported on this platform")

// New opens pol.Root and returns the workspace over it.
func New(pol *policy.Policy, opts Options) (*Workspace, error) {
	if pol == nil || !strings.HasPrefix(pol.Root, "/") {
		return nil, usage("a policy with an absolute root is required")
	}
	if !supported {
		return nil, errors.Join(ErrUnsupported, policy.ErrUnavailable)
	}
	fd, err := sysOpenRoot(pol.Root)
	if err != nil {
		return nil, fail(ioFailure(opts.withDefaults().MountPath, "the workspace root cannot be opened"))
	}
	return &Workspace{pol: pol, opts: opts.withDefaults(), res: &resolver{rootfd: fd}}, nil
}

// Close releases the root. Calls after Close fail.
func (w *Workspace) Close() error {
	sysClose(w.res.rootfd)
	w.res.rootfd = -1
	return nil
}

// MountPath is where the model sees the root.
func (w *Workspace) MountPath() string { return w.opts.MountPath }

func usage(what string) error { return errors.Join(ErrUsage, errors.New("workspace: "+what)) }

// fail is a refused or failed operation: an outcome.Error (read it with
// outcome.Of) whose message holds the kind and the model path, never
// contents or host paths. Denials unwrap to policy.ErrDenied and path
// refusals to pathrule.ErrPathRefused, so callers can test with errors.Is.
func fail(o outcome.Outcome) error {
	var sentinel error
	switch o.Kind {
	case outcome.DeniedByPolicy, outcome.OutsideWriteRoot:
		sentinel = policy.ErrDenied
	case outcome.PathRejected:
		sentinel = pathrule.ErrPathRefused
	}
	return &outcome.Error{Op: "workspace", Outcome: o, Err: sentinel}
}

func ioFailure(path, detail string) outcome.Outcome {
	return outcome.Outcome{Kind: outcome.IOFailure, Path: path, Detail: detail}
}

// model is the model path of rel: the mount path, then rel.
func (w *Workspace) model(rel string) string { return w.mount().Model(rel) }

// host is the policy's path for rel: the root, then rel. Only the policy
// sees it; it never reaches an outcome.
func (w *Workspace) host(rel string) string {
	if rel == "" {
		return w.pol.Root
	}
	return strings.TrimSuffix(w.pol.Root, "/") + "/" + rel
}

func splitRel(rel string) (dir, base string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return "", rel
	}
	return rel[:i], rel[i+1:]
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// Fail is the workspace's refusal of o, as its own operations return it
// (with the same sentinels), for a server that refuses on the
// workspace's behalf (internal/sandboxd/files).
func Fail(o outcome.Outcome) error { return fail(o) }
