package run

import (
	"io"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// DefaultMaxOutput is the per-stream capture ceiling when Options leaves it zero.
const DefaultMaxOutput int64 = 1 << 20

// Options says how to run one confined command.
type Options struct {
	// Stdin is the command's input; nil means /dev/null. An *os.File is
	// handed over as is only when it is a pipe or /dev/null; any other —
	// a terminal (the command could drive it), a file (reopened writable
	// through /proc/self/fd/0), a directory (names opened beneath it, past
	// the view), a socket (reconnected in the host's network) — is copied
	// through a pipe like any other reader (stdin.go). With Terminal.Stdin
	// it feeds the new terminal instead.
	Stdin io.Reader
	// Terminal, when set, runs the command on a new pseudo-terminal; see
	// Terminal.
	Terminal *Terminal
	// Stdout and Stderr, when set, receive the output live as it arrives
	// (a long build shows progress) while a bounded copy is captured.
	Stdout, Stderr io.Writer
	// MaxStdout and MaxStderr bound the captured copy per stream; zero
	// means DefaultMaxOutput.
	MaxStdout, MaxStderr int64
	// Timeout stops the whole tree when it elapses; zero means none.
	Timeout time.Duration
	// KillAfter is the grace a timeout or a cancellation gives the tree:
	// SIGTERM first to every process of the command's tree (not to the
	// runners that confine it), so a shell's trap handlers run, then
	// SIGKILL to the whole tree once KillAfter has passed. Zero or
	// negative kills at once. A breach (memory, processes, CPU, output)
	// never gets a grace: a fork bomb is not asked to stop.
	KillAfter time.Duration
	// Limits are the resource limits. WallClock acts as a second timeout
	// and is reported as a breach when it is the one that fired.
	Limits policy.Limits
	// KeepRunningPastCeiling keeps the command running once an output
	// ceiling is passed, discarding (but counting) the rest. The default
	// stops the whole tree and reports Breach "output": a flood is either
	// a runaway or a waste of the budget, and cutting it quietly while it
	// runs on would hide that.
	KeepRunningPastCeiling bool
	// Reaper starts a process-group Cmd under the subreaper
	// (internal/reaper) so a descendant that calls setsid, or a SIGKILL of
	// the supervisor, leaves no survivor. The reaper is executed from the
	// carried init image (internal/confine/initimage) or, where there is
	// none, from the running binary, which must then call entry.Dispatch
	// first thing in main; Run refuses otherwise.
	Reaper bool
	// OnStart, when set, is called with the root's pid once it is started
	// and admitted (placed under its limits, Setup done), before the
	// command runs: a session signals the tree below it. The pid stays
	// the root's until Run returns (Run holds it unreaped).
	OnStart func(pid int)
	// Resize, with Terminal, carries the new terminal's window size: a
	// value already waiting when Run opens the terminal is its size from
	// the start; each later one resizes it (the kernel tells the
	// command's foreground group, SIGWINCH). For a caller without a
	// terminal of its own to follow (Terminal.Size), e.g. a session's
	// remote client.
	Resize <-chan WindowSize
	// CgroupRoot overrides /sys/fs/cgroup (tests).
	CgroupRoot string
}

// Resources says how resource limits were enforced for one run. It is
// confine.Resources, the field of the one Enforcement type the result
// carries.
type Resources = confine.Resources

// Enforcement levels for resource limits (see confine.ResourcesQuota …).
const (
	ResourcesQuota   = confine.ResourcesQuota
	ResourcesMonitor = confine.ResourcesMonitor
	ResourcesNone    = confine.ResourcesNone
)

// SampleInterval is how often limits are checked.
const SampleInterval = 50 * time.Millisecond

// Truncated reports output cut at a ceiling: the bytes seen on each stream
// in total (zero for a stream that was not cut). It is the one type of
// that fact: the public result (ringfence.Truncated) is this type, and its
// JSON names both streams always, the stable form of `ringfence run --json`.
type Truncated struct {
	Stdout int64 `json:"stdout"`
	Stderr int64 `json:"stderr"`
}

// Result is what happened, as facts. A command the supervisor stopped (a
// timeout, a cancellation, a breach) has ExitCode nil. Breach can also be
// set beside an ExitCode: the kernel refused something (an OOM kill, a
// fork at pids.max) but the command ended before it could be stopped.
type Result struct {
	ExitCode   *int           `json:"exitCode"`
	Signal     string         `json:"signal,omitempty"`
	Stdout     []byte         `json:"stdout"`
	Stderr     []byte         `json:"stderr"`
	Truncated  *Truncated     `json:"truncated,omitempty"`
	TimedOut   bool           `json:"timedOut"`
	Aborted    bool           `json:"aborted"`
	DurationMs int64          `json:"durationMs"`
	Status     status.Summary `json:"status"`
	// StatusChannel says Status came from a channel (the Cmd's own or the
	// reaper's) rather than being empty for want of one.
	StatusChannel bool             `json:"-"`
	Breach        outcome.Breach   `json:"breach,omitempty"`
	Resources     Resources        `json:"resources"`
	TreeKill      confine.TreeKill `json:"treeKill"`
	Usage         outcome.Usage    `json:"usage"`
}
