package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/backends"
	"github.com/ringfence/ringfence/internal/modelpath"
	"github.com/ringfence/ringfence/internal/privdir"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Config configures a Local sandbox. Only Root is required.
type Config struct {
	// Root is the workspace on the host. It must exist.
	Root string
	// MountPath is how the model sees the root; default "/workspace".
	MountPath string
	// Defaults is the deployment's policy ceiling. Root and TempDir are
	// filled in by New. A zero Defaults is the agent profile,
	// policy.AgentProfile: workspace-write, the host readable but the
	// user's credential places, no network. Once any field is set the
	// value is taken as written, and its zero fields are the strictest (a
	// zero Mode is read-only, a zero Baseline an allow-list): start from
	// policy.AgentProfile or policy.AgentDefaults and change what differs;
	// policy.AllowList asks for an allow-list baseline explicitly.
	Defaults policy.Defaults
	// Backend is "auto" (default), "linux", "landlock" or "bwrap".
	Backend string
	// Timeout is the default per-command timeout; zero is none.
	Timeout time.Duration
	// KillAfter is how long a timed-out or cancelled command has between
	// SIGTERM (to every process of its tree, so trap handlers run) and
	// SIGKILL; zero is DefaultKillAfter, negative kills at once.
	KillAfter time.Duration
	// MaxOutput bounds each captured output stream; zero is 1 MiB.
	MaxOutput int64
	// Env are variables every command gets, over what EnvPolicy passes.
	Env map[string]string
	// EnvPolicy chooses which of the host's variables (os.Environ() at each
	// call) a command gets. The zero value is policy.DefaultEnv's
	// allow-list: PATH (absolute entries only), HOME, USER, locale,
	// terminal and toolchain variables, never one whose name or value
	// looks like a credential; Clear passes none (PATH is DefaultPath).
	EnvPolicy policy.Env
	// Home is how commands see the user's home: with On, the real files to
	// read and writes kept in a private layer per workspace.
	Home HomeConfig
	// Audience is who reads each result's narration: a model (the zero
	// value, tool-argument words) or the command line (flag words).
	Audience outcome.Audience
}

// DefaultKillAfter is the grace between SIGTERM and SIGKILL when a command
// is stopped for its timeout or a cancellation (as `timeout -k`).
const DefaultKillAfter = 2 * time.Second

// DefaultPath is the PATH a command gets when neither the host nor the
// configuration gives a usable one.
const DefaultPath = policy.DefaultPath

// Local is ringfence's own sandbox: commands confined by the best backend
// this host offers, files through the policy-fenced workspace.
type Local struct {
	cfg      Config
	defaults policy.Defaults
	provider confine.Provider
	ws       *workspace.Workspace
	tempDir  string
	tmp      *privdir.Dir // tempDir, locked for this process's life
	once     sync.Once
	home     *confine.Home // the private home layer, or nil
	homeDir  string        // HOME for commands, or ""
	homeNote string        // why there is no home layer, when one was wanted
}

// New prepares a sandbox over cfg.Root. It creates a private temp dir (the
// one workspace-write grants besides the root), removed by Close.
func New(cfg Config) (*Local, error) {
	root, err := canonicalRoot(cfg.Root)
	if err != nil {
		return nil, err
	}
	if cfg.MountPath == "" {
		cfg.MountPath = outcome.DefaultMountPath
	}
	d := cfg.Defaults
	if d.IsZero() {
		home, _ := os.UserHomeDir()
		d = policy.AgentProfile(home, func(p string) bool { _, err := os.Lstat(p); return err == nil })
	}
	// Before anything else looks at home (a backend's probe cache lives
	// there): a home that does not exist must be seen not to.
	home, note, err := setupHome(cfg.Home, root, &d)
	if err != nil {
		return nil, err
	}
	provider, err := backends.Select(cfg.Backend)
	if err != nil {
		return nil, err
	}
	priv, err := privateTempDir()
	if err != nil {
		return nil, fmt.Errorf("ringfence: private temp dir: %w", err)
	}
	tmp := priv.Path
	d.Root, d.TempDir = root, tmp
	if d.ReadFile == nil {
		d.ReadFile = os.ReadFile
	}
	l := &Local{cfg: cfg, defaults: d, provider: provider, tempDir: tmp, tmp: priv, home: home, homeNote: note}
	if home != nil {
		l.homeDir = home.Dir
	}
	pol, err := l.Policy(policy.Request{})
	if err == nil {
		l.ws, err = workspace.New(pol, workspace.Options{MountPath: cfg.MountPath})
	}
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return l, nil
}

// canonicalRoot makes the root absolute with its links resolved, because the
// kernel (mounts, Landlock) and the workspace both judge physical paths.
func canonicalRoot(root string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("ringfence: no workspace root: %w", policy.ErrPolicy)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("ringfence: workspace root: %w", err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("ringfence: workspace root is not a directory: %w", policy.ErrPolicy)
	}
	return real, nil
}

// Isolation reports what this sandbox claims, from the resolved defaults
// and the backend actually selected.
func (l *Local) Isolation() Isolation {
	pol, err := l.Policy(policy.Request{})
	if err != nil || !pol.Confining() || l.Backend() == "" {
		return Isolation{}
	}
	ns := l.traits().Namespaces // the backend's own claim, not its name
	return Isolation{
		Filesystem: true,
		Network:    pol.Network.Mode != policy.NetAllowAll && ns,
		Processes:  ns,
	}
}

// Backend names the backend commands are confined by — for "auto", the one
// it selects on this host — or "" when none works here.
func (l *Local) Backend() string {
	if l.provider == nil {
		return ""
	}
	p, err := confine.Selected(l.provider)
	if err != nil {
		return ""
	}
	return p.Name()
}

// Policy resolves req against the deployment's defaults. It is the one
// place the pipeline resolves a request (Exec, sessions, WorkspaceFor, the
// defaults' own workspace all come here), so every path widens or narrows
// by exactly the same rule. A single-call approval in req is spent here.
func (l *Local) Policy(req policy.Request) (*policy.Policy, error) {
	return policy.Resolve(req, l.defaults)
}

// Workspace is the policy-fenced file layer over the root (default
// policy). It belongs to the sandbox: Close closes it.
func (l *Local) Workspace() *Workspace { return l.ws }

// WorkspaceFor resolves req against the deployment's defaults, as
// ExecRequest does, and opens the file layer over the resulting policy. It
// is how a write a person approved (req.Approval carrying a write entry for
// one path) is done through the same fence as every other write: the
// approval widens the policy, never a flag in the call. A single-call
// approval is spent here. The caller closes the workspace.
func (l *Local) WorkspaceFor(req policy.Request) (*Workspace, error) {
	pol, err := l.Policy(req)
	if err != nil {
		return nil, err
	}
	return workspace.New(pol, workspace.Options{MountPath: l.cfg.MountPath})
}

// MountPath is how the model sees the workspace root.
func (l *Local) MountPath() string { return l.cfg.MountPath }

// ReadFile implements Sandbox: a raw read of a model path, refused when
// larger than maxBytes.
func (l *Local) ReadFile(_ context.Context, path string, maxBytes int64) ([]byte, error) {
	r, err := l.ws.ReadFile(path, workspace.ReadOptions{MaxBytes: maxBytes, Raw: true})
	if err != nil {
		return nil, err
	}
	return r.Data, nil
}

// WriteFile implements Sandbox: an atomic write of a model path.
func (l *Local) WriteFile(_ context.Context, path string, data []byte) error {
	_, err := l.ws.WriteFile(path, data)
	return err
}

// Close removes the private temp dir. Safe to call twice.
func (l *Local) Close() error {
	var err error
	l.once.Do(func() {
		if l.ws != nil {
			err = l.ws.Close()
		}
		err = errors.Join(err, l.tmp.Close())
	})
	return err
}

// hostDir turns a model working directory into a host path under the
// root, by the one model-path reading (internal/modelpath): "", "." and
// the mount path are the root; a refusal is path-rejected and wraps
// pathrule.ErrPathRefused.
func (l *Local) hostDir(dir string) (string, error) {
	rel, err := modelpath.Mount(l.cfg.MountPath).Scope(dir)
	if err != nil {
		return "", err
	}
	return filepath.Join(l.defaults.Root, rel), nil
}

// privateTempDir makes the private temp dir under /tmp whatever the host's
// TMPDIR says: the sandboxes show it inside their private /tmp, so a
// command sees a /tmp path, never a host one (a TMPDIR under the user's
// home would name the home in every path a tool prints). Only when /tmp
// cannot be written is the host's TMPDIR used. The directory is locked for
// this process's life (internal/privdir), and first the ones a ringfence
// that died (SIGKILL) left there are swept.
func privateTempDir() (*privdir.Dir, error) {
	const prefix = "ringfence-tmp-"
	privdir.Sweep("/tmp", prefix, nil)
	if d, err := privdir.Make("/tmp", prefix); err == nil {
		return d, nil
	}
	privdir.Sweep(os.TempDir(), prefix, nil)
	return privdir.Make(os.TempDir(), prefix)
}

// Backends are the backend names Config.Backend accepts, strongest first;
// "auto" picks the first that works on this host.
var Backends = backends.Names
