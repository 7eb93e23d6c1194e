package initproc

import "github.com/ringfence/ringfence/policy"

// Arg is os.Args[1] of a ringfence process started as a sandbox init: its
// name in the entry table (internal/entry), which every binary that
// confines dispatches first thing.
const Arg = "__confine"

// ExecStage is os.Args[2] of the init's second, short-lived exec (see
// Spec.Nest): `ringfence __confine exec`.
const ExecStage = "exec"

// Descriptors the init inherits (ExtraFiles[0], [1] and [2]).
const (
	SpecFD   = 3 // read end of the spec pipe: one JSON Spec, then EOF
	StatusFD = 4 // write end of the status channel (internal/status format)
	// ImageFD is the carried init itself, which the child executes as
	// /proc/self/fd/5 (initimage), or closed when the init is the running
	// binary. Passed at a fixed place because os/exec's child moves its own
	// descriptors above the highest one it was given before it executes:
	// a memfd kept at a fixed number above them (100, until this) was
	// overwritten by that move in a process holding ~100 descriptors, and
	// the exec failed with EACCES. The init closes it first thing.
	ImageFD = 5
)

// ExitSetup is the init's exit code when it fails before the command ran.
// The status channel is the evidence; the code only keeps ringfence's own
// failures apart from the usual shell codes (126, 127), as docker run does.
const ExitSetup = 125

// Spec is everything the init needs, sent over SpecFD: never on the command
// line or in the environment, where the command or a host ps could read it.
type Spec struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"` // working directory, a path inside the view
	Env  []string `json:"env"` // the command's complete environment

	// View is the mount view to build in the init's mount namespace; nil
	// means the init has no mount namespace (the landlock backend).
	View *View `json:"view,omitempty"`
	// Loopback brings "lo" up in the init's network namespace.
	Loopback bool   `json:"loopback,omitempty"`
	Hostname string `json:"hostname,omitempty"`
	// Proxy runs the in-namespace side of the domains network (see
	// ProxySpec); it needs Loopback and a network namespace of its own.
	Proxy *ProxySpec `json:"proxy,omitempty"`
	// DenyVsock refuses AF_VSOCK sockets (seccomp, the init's main
	// thread): vsock is not namespaced, so a network namespace does not
	// keep the command from the hypervisor's services.
	DenyVsock bool `json:"denyVsock,omitempty"`

	Landlock Landlock `json:"landlock"`
	Seccomp  Seccomp  `json:"seccomp"`

	// Subreaper makes orphans of the command the init's to reap (no pid
	// namespace: the landlock backend).
	Subreaper bool `json:"subreaper,omitempty"`

	// Nest gives the command a Landlock domain of its own, nested in the
	// init's and scoped (signals, abstract unix sockets): the init then
	// lies outside the command's domain, so the command can neither signal
	// (stop, kill) it nor reach what it could. The domain is made by a
	// short-lived exec stage (package execstage, or the init again:
	// ExecStage) between fork and the command's exec, since Go cannot run
	// code in a forked child. For an init without a pid namespace (the
	// landlock backend), whose signals the kernel does not otherwise
	// shield.
	Nest bool `json:"nest,omitempty"`
	// GoExecStage makes the init's own image the exec stage even where a
	// stage is carried (package execstage): what builds without one run.
	// Only tests set it, so that path stays tested on linux/amd64.
	GoExecStage bool `json:"go_exec_stage,omitempty"`

	// Session makes the init serve start requests on its control socket
	// (ControlFD) instead of running Argv: see session.go.
	Session bool `json:"session,omitempty"`

	// Probe makes the init stop after the namespace and mount checks and
	// exit 0: Available's real test of this host.
	Probe bool `json:"probe,omitempty"`

	// Parent is the supervisor's pid (set by NewCmd: the process that
	// forks the init). An init without a pid namespace compares its parent
	// with it to notice a supervisor that died before the parent-death
	// handler was in place. "My parent is pid 1" is no such sign: the
	// supervisor may itself be pid 1 (a container's entrypoint), and an
	// orphan may be re-parented to a subreaper rather than to pid 1.
	Parent int `json:"parent,omitempty"`
}

// View describes the mount view. Ops are applied in order, after the base.
type View struct {
	// EmptyBase starts from an empty read-only tmpfs (an allow-list policy)
	// instead of a read-only recursive copy of the host's root.
	EmptyBase bool `json:"emptyBase,omitempty"`
	// SynthRoot builds the root as a read-only tmpfs holding a read-only
	// bind of every top-level entry of the host's root (links recreated),
	// instead of one clone of the host's root: a path that does not exist
	// on the host (the workspace's mount path, "/workspace") can then get a
	// mountpoint without anything being created on the host.
	SynthRoot bool `json:"synthRoot,omitempty"`
	Ops       []Op `json:"ops"`
}

// OpKind is one kind of mount operation.
type OpKind string

// The mount operations.
const (
	BindRW OpKind = "bind-rw" // host Source at Target, writable
	BindRO OpKind = "bind-ro" // host Source at Target, read-only
	Mask   OpKind = "mask"    // hide Target: empty read-only tmpfs or empty file
	Tmpfs  OpKind = "tmpfs"   // private scratch tmpfs at Target; RO makes it read-only
	Proc   OpKind = "proc"    // fresh procfs for the new pid namespace
	// ProcHost is the fallback where a fresh procfs is refused (a
	// container's masked /proc): the host's /proc, recursively bound
	// read-only, with the /proc/<pid> of every process present at set-up
	// but the init masked. See procHost for what stays visible.
	ProcHost OpKind = "proc-host"
	Dev      OpKind = "dev" // minimal /dev
	// Pin binds Target (as the view has it so far, submounts included)
	// onto itself: a mountpoint cannot be renamed or removed.
	Pin OpKind = "pin"
	// Overlay mounts an overlayfs at Target: Source (a host directory) is
	// the read-only lower layer, Upper and Work (host directories on one
	// filesystem, outside the view) take every change. Reads see the host
	// content; writes never reach it.
	Overlay OpKind = "overlay"
)

// Op is one mount operation. Target is a path inside the view; it is
// resolved inside the view (links followed as the command would follow
// them), never on the host.
type Op struct {
	Kind   OpKind `json:"kind"`
	Source string `json:"source,omitempty"`
	Target string `json:"target"`
	RO     bool   `json:"ro,omitempty"`
	// Protected marks a carve-out whose absence must be reported.
	Protected bool `json:"protected,omitempty"`
	// Size bounds a tmpfs (Tmpfs; for Dev, its /dev/shm) in bytes; 0
	// leaves the kernel's default (half the RAM).
	Size int64 `json:"size,omitempty"`
	// Upper and Work are an Overlay's host directories.
	Upper string `json:"upper,omitempty"`
	Work  string `json:"work,omitempty"`
}

// Landlock is the Landlock ruleset the init enforces on itself (and so on
// the command) after the view is built. Paths are view paths.
type Landlock struct {
	Read  []string `json:"read,omitempty"`  // hierarchies readable and executable
	Write []string `json:"write,omitempty"` // hierarchies fully writable
	// Carved are hierarchies inside Write that must stay unwritable, and
	// ReadCarved those inside Read that must stay unreadable: roots holding
	// them are granted per sibling subtree instead (the landlock backend;
	// the linux backend enforces carve-outs with mounts). Directories on
	// the way to a read carve-out stay listable, not readable.
	Carved     []string `json:"carved,omitempty"`
	ReadCarved []string `json:"readCarved,omitempty"`
	// UnixSockets are host sockets the command may connect to (ABI 9+).
	UnixSockets []string `json:"unixSockets,omitempty"`
	// RestrictTCP handles TCP bind and connect with no port allowed but
	// ConnectTCP's.
	RestrictTCP bool `json:"restrictTCP,omitempty"`
	// ConnectTCP are the ports TCP connect is allowed to under RestrictTCP
	// (the landlock backend's domains network: the policy proxy's ports on
	// the host's loopback). Landlock rules name ports, not addresses: the
	// seccomp supervisor holds the address (Seccomp.ProxyPorts).
	ConnectTCP []uint16 `json:"connectTCP,omitempty"`
	// Required makes a kernel without Landlock a setup failure.
	Required bool `json:"required,omitempty"`
}

// Seccomp selects the seccomp filter.
type Seccomp struct {
	// DenyUnixConnect supervises connect(2) on unix sockets: only sockets
	// under AllowUnix (writable roots, temp dirs, named sockets) connect.
	DenyUnixConnect bool     `json:"denyUnixConnect,omitempty"`
	AllowUnix       []string `json:"allowUnix,omitempty"`
	// Protected are paths (view paths, symlink-free) at or beneath which no
	// name may be created, linked or renamed: every creating call is
	// supervised (seccomp GuardCreate). For carve-outs a mount cannot
	// cover because they do not exist yet. The supervisor acts outside
	// Landlock, so only a backend whose mount view already confines writes
	// may set it.
	Protected []string `json:"protected,omitempty"`
	// NameRoots turns on protection by name at every depth under these
	// writable roots (view paths, symlink-free; policy.MatchProtectedName
	// with Names): every creation, write-open, truncation, link and
	// rename is supervised (seccomp GuardCreate, GuardWrite, Rules.Names).
	NameRoots []string              `json:"nameRoots,omitempty"`
	Names     policy.NameProtection `json:"names,omitempty"`
	// ConfineGuard makes each supervisor thread that performs a call for
	// the command take the command's Landlock ruleset first
	// (seccomp.Rules.Confine), where Landlock is per thread (ABI < 8):
	// required when the mount view does not confine writes on its own
	// (the landlock backend).
	ConfineGuard bool `json:"confineGuard,omitempty"`
	// GuardRemove also supervises unlink, unlinkat and rmdir, and refuses
	// renaming an ancestor of a Protected path: Protected then holds
	// existing read-only paths no mount covers (the landlock backend).
	GuardRemove bool `json:"guardRemove,omitempty"`
	// DenyInet refuses IP sockets outright (no network namespace to hold
	// them: the landlock backend under deny or loopback).
	DenyInet bool `json:"denyInet,omitempty"`
	// ProxyPorts, for a sandbox sharing the host's network whose only way
	// out is the policy proxy on 127.0.0.1 at these ports (the landlock
	// backend under the domains network): socket(2) is refused for every
	// family but AF_UNIX and TCP over IPv4/IPv6 (no UDP, raw, packet,
	// MPTCP, SCTP, vsock, netlink: ProxyInetFilter); every IP connect is
	// performed by the supervisor only to 127.0.0.1 at one of the ports
	// (seccomp.ProxyOnly, with DenyUnixConnect), and listen on an IP
	// socket is refused (seccomp GuardListen). Takes the place of DenyInet.
	ProxyPorts []uint16 `json:"proxyPorts,omitempty"`
	// GuardMeta supervises every metadata change (chmod, chown, utimes,
	// xattrs): performed only at or beneath MetaWritable and not at or
	// beneath MetaCarved. For the landlock backend, which has no read-only
	// mount view to hold metadata (Landlock ≤ ABI 7 has no right for it).
	GuardMeta    bool     `json:"guardMeta,omitempty"`
	MetaWritable []string `json:"metaWritable,omitempty"`
	MetaCarved   []string `json:"metaCarved,omitempty"`
	// PeerCheck refuses a connect to a socket allowed by AllowUnix whose
	// listener is outside the sandbox, unless UnixHost names it: a host
	// process's socket inside a writable root is a host socket.
	PeerCheck bool     `json:"peerCheck,omitempty"`
	UnixHost  []string `json:"unixHost,omitempty"`
	// PeerCheckAbstract extends PeerCheck to abstract unix sockets, for a
	// sandbox that shares the host's network namespace (the landlock
	// backend; the linux backend under allow-all), where a host process's
	// abstract socket (a D-Bus bus, an X server, an IDE) is reachable by
	// name. Datagram sends to an abstract address are refused there: they
	// carry no peer to check.
	PeerCheckAbstract bool `json:"peerCheckAbstract,omitempty"`
}
