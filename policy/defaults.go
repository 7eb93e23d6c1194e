package policy

import "time"

// GitProtection says how much of each writable root's .git a call may
// change.
type GitProtection string

// The .git protections.
const (
	// GitDefault keeps .git/hooks and .git/config (and a worktree's .git
	// file and its gitdir's hooks and config) read-only and the rest of
	// .git writable, so commits, index updates and ref moves keep working
	// while nothing can plant a hook or rewrite core.hooksPath.
	GitDefault GitProtection = ""
	// GitReadOnly keeps all of .git (and a worktree's gitdir) read-only.
	GitReadOnly GitProtection = "read-only"
	// GitWritable protects nothing in .git: an explicit deployment choice.
	GitWritable GitProtection = "writable"
)

// UnmarshalText reads "read-only", "writable" or "default" ("" too).
func (g *GitProtection) UnmarshalText(b []byte) error {
	switch s := GitProtection(b); s {
	case GitDefault, GitReadOnly, GitWritable:
		*g = s
	case "default":
		*g = GitDefault
	default:
		return &InvalidError{Field: "protect_git", Value: string(b), Reason: "want one of default, read-only, writable"}
	}
	return nil
}

// Defaults is the deployment's side of a resolution: trusted, set by the
// person running ringfence (flags, a policy file, Go code). Every path is
// absolute; Resolve refuses a relative one.
type Defaults struct {
	Mode     Mode   // the ceiling; a request may only narrow it
	Root     string // the workspace root (required)
	TempDir  string // private temp dir granted write under workspace-write, or ""
	Baseline Access // Read (deny-list) or Deny (allow-list); the zero value is Deny
	// Entries are standing carve-outs (origin FromDeployment). For one path,
	// a later entry replaces an earlier one. Write entries take effect only
	// under workspace-write: read-only means nothing is writable unless an
	// approval says so.
	Entries []Entry
	// Restrictions are standing restrictions from a source that may only
	// narrow (a workspace's untrusted policy file, the CLI's guard over
	// its own config dir): each caps access in its subtree exactly as a
	// request entry does (intersection), with origin FromDeployment. A
	// write restriction is invalid.
	Restrictions []Entry
	Network      Network // the network ceiling
	Limits       Limits  // the limits ceiling; a zero field is unlimited
	// ProtectGit chooses how much of .git stays writable (GitDefault etc.).
	ProtectGit GitProtection
	// ExtraProtected are more subpaths, relative to each writable root
	// (".env", "secrets"), layered read-only like the built-in ones.
	ExtraProtected     []string
	AllowAliasedWrites bool
	UnixSockets        []string
	// ReadFile reads a writable root's .git file to find a worktree's
	// gitdir. Nil skips that step (the gitdir is then not protected).
	ReadFile func(name string) ([]byte, error)
	// Now is the clock approvals expire by; nil is time.Now.
	Now func() time.Time
}

// Request is the untrusted side of a resolution: what a tool call (in an
// agent, a model-authored payload) asks for. Every field may only narrow
// what Defaults allow; widening needs Approval, which no payload can carry
// (it is tagged out of JSON and has no exported state). The JSON form is
// what a payload may say: mode, cwd, entries, network, limits.
type Request struct {
	Mode *Mode `json:"mode,omitempty"` // nil: the ceiling (or an approval's mode)
	// SessionMode is the calling session's own mode; it lowers the ceiling.
	// It is the server's fact about the session, never read from a payload.
	SessionMode *Mode `json:"-"`
	// Cwd is where the command starts: absolute, inside the root; "" is the
	// root. A cwd outside the root is refused, never used to widen.
	Cwd string `json:"cwd,omitempty"`
	// Entries are restrictions: each caps access in its subtree. A write
	// entry is refused unless the approval carries a write entry covering it.
	Entries []Entry  `json:"entries,omitempty"`
	Network *Network `json:"network,omitempty"` // nil: the ceiling (or an approval's network)
	// Limits may lower any limit, or set one the defaults leave unlimited;
	// a zero field keeps the deployment's.
	Limits   *Limits   `json:"limits,omitempty"`
	Approval *Approval `json:"-"`
	// SessionID is the server's identity for the calling session (audit,
	// session-bound approvals); like SessionMode it never comes from JSON.
	SessionID string `json:"-"`
}

func (d *Defaults) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

// Check reports whether d can be resolved at all (every path absolute, a
// known mode, baseline, network and protect_git, no negative limit), as
// Resolve of an empty request would. It reads no .git file.
func (d Defaults) Check() error {
	d.ReadFile = nil
	_, err := resolve(Request{}, d, nil)
	return err
}
