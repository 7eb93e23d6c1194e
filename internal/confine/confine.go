package confine

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Request is one command to confine.
type Request struct {
	Net    *NetOptions    // the domains network's proxy settings; nil: defaults
	Argv   []string       // the exact argv, program first; never a shell string
	Dir    string         // working directory (host path, inside the sandbox view)
	Env    []string       // the complete environment the command gets (already allow-listed)
	Policy *policy.Policy // resolved; Confine never re-defaults it
	// MountPath is where the command sees the workspace root ("/workspace"
	// under servers and MCP); "" or the root itself: its real path. A
	// backend that cannot mount says so in Enforcement.Reasons.
	MountPath string
	// Home is the private layer over the user's home, or nil: home stays
	// read-only (or as the policy says).
	Home *Home
	// Session asks for a session init that serves commands on a control
	// socket (Cmd.Control) instead of running Argv; only a backend that
	// sets Cmd.Control supports it, and a caller must not start a Cmd
	// without one.
	Session bool
}

// Files is how completely a backend enforces a policy's file effects here.
type Files string

// File enforcement levels.
const (
	FilesFull      Files = "full"       // every layer enforced by the kernel
	FilesPartial   Files = "partial"    // some layers are not; Reasons says which
	FilesFenceOnly Files = "fence-only" // no process confinement; only the in-process fence
	FilesNone      Files = "none"       // not confined (danger-full-access)
)

// Net is how completely a backend enforces a policy's network mode here.
type Net string

// Network enforcement levels.
const (
	NetFull         Net = "full"
	NetLoopbackOnly Net = "loopback-only"
	// NetPartial: the mode holds for programs that cooperate and refuses
	// the rest (the landlock backend's domains network: a program that
	// ignores the proxy variables is refused, not captured); Reasons say how.
	NetPartial Net = "partial"
	NetNone    Net = "none" // the command reaches whatever the host reaches
)

// TreeKill is how the whole process tree is stopped.
type TreeKill string

// Tree-kill mechanisms, strongest first.
const (
	KillPidNamespace TreeKill = "pid-namespace" // killing the init ends every descendant
	KillProcessGroup TreeKill = "process-group" // a descendant that calls setsid escapes
)

// Resources says how resource limits were enforced for one run.
type Resources string

// Enforcement levels for resource limits.
const (
	// ResourcesQuota: a cgroup made the kernel refuse to exceed memory and
	// process limits (CPU time is still sampled: no cgroup stops at a
	// CPU-time total).
	ResourcesQuota Resources = "quota"
	// ResourcesMonitor: the tree was sampled every SampleInterval and
	// stopped once over; a spike between two samples is not prevented.
	ResourcesMonitor Resources = "monitor"
	// ResourcesNone: no resource limit was asked for.
	ResourcesNone Resources = "none"
)

// Enforcement is what a command is actually held to, as a fact. It is the
// one type of that fact: a backend fills Files, Network and Reasons when it
// confines; the supervisor's Resources and the /tmp fate (Scratch) are
// added to the same value in the result (ringfence.Enforcement is this
// type). The JSON is the stable `enforcement` of `ringfence run --json`,
// fields in this order.
type Enforcement struct {
	Files     Files     `json:"files"`             // full | partial | fence-only | none
	Network   Net       `json:"network"`           // full | loopback-only | partial | none
	Resources Resources `json:"resources"`         // quota | monitor | none; "" until the run
	Reasons   []string  `json:"reasons,omitempty"` // why anything is weaker than asked
	// Scratch says what becomes of writes to /tmp (outside $TMPDIR) and
	// /dev/shm: "discarded" (a private mount thrown away when the command
	// ends), "read-only", or "host" (the landlock backend: the host's own);
	// "" until the run.
	Scratch string `json:"scratch,omitempty"`
}

// Cmd is what to start in place of the caller's argv. The supervisor starts
// Path with Args, Env, Dir, ExtraFiles (as descriptors 3, 4, …) and
// SysProcAttr, closes ExtraFiles in the parent once started, reads Status to
// EOF, and calls Cleanup when the process has been reaped.
type Cmd struct {
	Path        string
	Args        []string
	Env         []string
	Dir         string
	ExtraFiles  []*os.File
	SysProcAttr *syscall.SysProcAttr
	// Status is the parent's read end of the status channel (internal/status
	// format), or nil when the backend has none.
	Status *os.File
	// Setup, if set, runs after Start with the child's pid (e.g. to write the
	// spec or uid maps), before Status is read. An error kills the child.
	Setup func(pid int) error
	// Stage, if set, is Setup in two steps for a caller that places the
	// runner under limits after starting it: Stage runs at once (the
	// runner starts its own set-up) and returns admit, to be called once
	// the runner is placed; until then the runner starts nothing of the
	// command. A caller that uses Stage does not call Setup.
	Stage func(pid int) (admit func() error, err error)

	Backend     string
	Enforcement Enforcement
	Dialect     outcome.Dialect
	TreeKill    TreeKill
	Cleanup     func()
	// NetEvents, set under the domains network, returns every decision
	// the policy proxy made for this run; complete once Cleanup has run.
	NetEvents func() NetLog
	// SetNet, set under the domains network, replaces the proxy settings
	// the Request carried (its non-nil fields); call it before Start.
	SetNet func(*NetOptions)
	// Control is the supervisor's end of a session init's control socket
	// (Request.Session), or nil; the caller closes it (after Cleanup too).
	Control *os.File
}

// Provider is one backend. Confine returns an enforcing Cmd or an error; it
// never returns an unconfined Cmd for a confining policy.
type Provider interface {
	Name() string
	// Traits is what the backend isolates besides what Enforcement says
	// per command; static (no probe), so it may be asked before Available.
	Traits() Traits
	// Available probes this host once (cached) and says why not when not.
	Available() error
	Confine(req Request) (*Cmd, error)
}

// UnavailableError says that no backend could enforce a confining policy,
// naming what was tried and why each failed. It wraps policy.ErrUnavailable.
type UnavailableError struct {
	Tried   []string // backend names, in the order tried
	Reasons []string // why each failed, same order
}

func (e *UnavailableError) Error() string {
	parts := make([]string, len(e.Tried))
	for i, name := range e.Tried {
		parts[i] = name + ": " + e.Reasons[i]
	}
	return "no sandbox backend can enforce this policy here (" + strings.Join(parts, "; ") + ")"
}

// Unwrap makes errors.Is(err, policy.ErrUnavailable) hold.
func (e *UnavailableError) Unwrap() error { return policy.ErrUnavailable }

// ErrNotConfining is returned when Confine is asked to confine a
// danger-full-access policy: the caller runs the argv itself, knowingly.
var ErrNotConfining = errors.New("danger-full-access is not confined by any backend")
