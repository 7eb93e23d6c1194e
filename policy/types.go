package policy

import (
	"errors"
	"time"
)

// Mode is the file-effect mode of one call, in widening order of authority.
type Mode int

// The modes. The zero value is the strictest, so a forgotten field confines.
const (
	ReadOnly         Mode = iota // the host readable, nothing writable but /dev/null-like sinks
	WorkspaceWrite               // plus the workspace root and a private temp dir
	DangerFullAccess             // no confinement at all
)

// Access is what a layer grants for its subtree: Deny < Read < Write.
type Access int

// The accesses, in widening order.
const (
	Deny Access = iota
	Read
	Write
)

// Origin says where a layer came from. At equal depth the later origin wins,
// so an explicit entry beats a generated one and an approval beats both.
type Origin int

// The origins, in the order they are applied at equal depth.
const (
	FromMode       Origin = iota // the mode's grant: workspace root, temp dir
	FromProtected                // protected subpaths under a writable root
	FromDeployment               // the deployment's own entries (policy file, flags)
	FromRequest                  // the untrusted request's restrictions
	FromApproval                 // entries carried by a minted approval
)

// Entry is one carve-out: a subtree and the access it gets.
type Entry struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
}

// Layer is a resolved entry with its origin. Layers are applied broadest to
// narrowest; the deepest layer containing a path decides its access.
type Layer struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	Origin Origin `json:"origin"`
}

// NetworkMode is what a call may reach, in widening order.
type NetworkMode int

// The network modes.
const (
	NetDeny     NetworkMode = iota // nothing, not even loopback
	NetLoopback                    // this sandbox's own loopback only
	NetDomains                     // the named domains (through a proxy)
	NetAllowAll                    // whatever the host reaches
)

// Network is a network mode plus, for NetDomains, the proxy's rules:
// Domains are the allow rules, Deny the deny rules (deny always wins),
// Reasons what the model is told when a deny rule decides, and Ask lets a
// person decide a host no rule names. Rules are netproxy rules (host,
// host:port, *.suffix, [IPv6], IP/CIDR, "*" in Domains only, @presets).
type Network struct {
	Mode    NetworkMode       `json:"mode"`
	Domains []string          `json:"domains,omitempty"`
	Deny    []string          `json:"deny,omitempty"`
	Reasons map[string]string `json:"reasons,omitempty"`
	Ask     bool              `json:"ask,omitempty"`
}

// Limits bounds what one execution may consume. A zero field is unlimited.
type Limits struct {
	WallClock   time.Duration `json:"wallClock,omitempty"`
	MemoryBytes int64         `json:"memoryBytes,omitempty"`
	Processes   int           `json:"processes,omitempty"`
	CPUTime     time.Duration `json:"cpuTime,omitempty"`
	// ScratchBytes bounds each private tmpfs of the view (/tmp, /dev/shm);
	// zero is the backend's default, min(1 GiB, RAM/4), never unbounded.
	ScratchBytes int64 `json:"scratchBytes,omitempty"`
}

// MaxDefaultScratch caps the default size of a private tmpfs (1 GiB).
const MaxDefaultScratch = 1 << 30

// Policy is the complete, resolved policy for one call. Nothing below
// Resolve re-defaults any of it: a backend enforces exactly this or refuses.
type Policy struct {
	Mode     Mode    // the file-effect mode in force
	Root     string  // the workspace root: absolute, clean
	TempDir  string  // the private temp dir granted under WorkspaceWrite, or ""
	Cwd      string  // where the command starts: inside Root (Root by default)
	Baseline Access  // access where no layer applies: Read (deny-list) or Deny (allow-list); Write under DangerFullAccess
	Layers   []Layer // sorted broadest to narrowest, ties by origin
	Network  Network
	Limits   Limits
	// AllowAliasedWrites permits writing a file that has another hard link.
	AllowAliasedWrites bool
	// UnixSockets are host socket paths the command may connect to; every
	// other host unix socket is refused even where it is readable.
	UnixSockets []string
	// SessionID is an opaque identity for per-session state and audit.
	SessionID string
	// Names protects by name at any depth under every writable root (see
	// MatchProtectedName): the backends' guards enforce it.
	Names NameProtection
}

// NameProtection is what a policy protects by name at any depth.
type NameProtection struct {
	// Extra are names protected like ProtectedNameTable's rows
	// (Defaults.ExtraProtectedNames).
	Extra []string
	// GitWritable leaves git's rules out (protect_git = writable).
	GitWritable bool
}

// Match is MatchProtectedName under n: NameNone for git's rules when
// GitWritable.
func (n NameProtection) Match(rel string) NameMatch {
	m := MatchProtectedName(rel, n.Extra)
	if n.GitWritable && m.Kind >= NameGitHooks {
		return NameMatch{}
	}
	return m
}

// Confining reports whether the policy asks a backend to confine at all.
func (p *Policy) Confining() bool { return p.Mode != DangerFullAccess }

// The sentinels every package reports through. Typed errors wrap them.
var (
	// ErrPolicy: a request asked for more than it may, or a policy is unusable.
	ErrPolicy = errors.New("policy refused")
	// ErrUnavailable: no backend on this host can enforce a confining policy.
	ErrUnavailable = errors.New("sandbox unavailable")
	// ErrDenied: an effect was refused by the policy.
	ErrDenied = errors.New("denied by policy")
)
