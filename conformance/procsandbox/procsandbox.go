package procsandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/ringfence/ringfence"
)

// Options configure a Sandbox. Only Root is required.
type Options struct {
	// Root is the directory commands run in and files live under; it is
	// created when missing.
	Root string
	// Env is what every command gets on top of PATH (which it may set).
	Env map[string]string
	// Timeout applies to a command that sets none; default 30 s.
	Timeout time.Duration
	// MaxOutput bounds each captured stream, in bytes; default 1 MiB.
	MaxOutput int
}

// DefaultPath is the PATH commands get when Env sets none.
const DefaultPath = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"

// Sandbox runs commands as plain processes under Root.
type Sandbox struct {
	opts   Options
	root   string // Root, absolute with links resolved
	mu     sync.Mutex
	closed bool
}

// ErrClosed is returned by every method once Close was called.
var ErrClosed = errors.New("procsandbox: closed")

var _ ringfence.Sandbox = (*Sandbox)(nil)

// New makes a sandbox over opts.Root.
func New(opts Options) (*Sandbox, error) {
	if opts.Root == "" {
		return nil, errors.New("procsandbox: no root")
	}
	if err := os.MkdirAll(opts.Root, 0o755); err != nil {
		return nil, err
	}
	root, err := canonical(opts.Root)
	if err != nil {
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 30 * time.Second
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = 1 << 20
	}
	return &Sandbox{opts: opts, root: root}, nil
}

// Isolation is the honest claim: none.
func (s *Sandbox) Isolation() ringfence.Isolation { return ringfence.Isolation{} }

// Close marks the sandbox closed; it leaves Root in place. Safe twice.
func (s *Sandbox) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

func (s *Sandbox) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Exec runs argv in opts.Dir beneath the root.
func (s *Sandbox) Exec(ctx context.Context, argv []string, opts ringfence.ExecOptions) (*ringfence.ExecResult, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("procsandbox: empty command")
	}
	dir, err := s.dir(opts.Dir)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = s.opts.Timeout
	}
	return s.run(ctx, argv, dir, opts, timeout)
}

func (s *Sandbox) dir(model string) (string, error) {
	if model == "" || model == "." {
		return s.root, nil
	}
	return s.resolve(model)
}

// env is the allow-list: PATH, the sandbox's variables, the call's.
func (s *Sandbox) env(extra map[string]string) []string {
	vars := map[string]string{"PATH": DefaultPath}
	for _, m := range []map[string]string{s.opts.Env, extra} {
		for k, v := range m {
			vars[k] = v
		}
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func (s *Sandbox) run(ctx context.Context, argv []string, dir string, o ringfence.ExecOptions, timeout time.Duration) (*ringfence.ExecResult, error) {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := newBounded(s.opts.MaxOutput, o.Stdout), newBounded(s.opts.MaxOutput, o.Stderr)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, s.env(o.Env), o.Stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A background descendant may hold the pipes open after the command is
	// gone; stop waiting for them soon after.
	cmd.WaitDelay = 500 * time.Millisecond
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return startFailed(err, start), nil
	}
	stop := context.AfterFunc(tctx, func() { killTree(cmd.Process.Pid) })
	cmd.Wait() // the process state says everything its error would
	stop()
	killGroup(cmd.Process.Pid) // what is left in its group after a normal exit
	return result(cmd, stdout, stderr, start, ctx, tctx), nil
}

func result(cmd *exec.Cmd, stdout, stderr *bounded, start time.Time, ctx, tctx context.Context) *ringfence.ExecResult {
	res := &ringfence.ExecResult{
		Stdout: stdout.String(), Stderr: stderr.String(),
		DurationMs: time.Since(start).Milliseconds(), Backend: "process",
		Enforcement: ringfence.Enforcement{Files: "none", Network: "none", Resources: "none",
			Reasons: []string{"procsandbox: plain processes, no isolation"}},
	}
	if stdout.cut > 0 || stderr.cut > 0 {
		res.Truncated = &ringfence.Truncated{Stdout: stdout.seen(), Stderr: stderr.seen()}
	}
	ps := cmd.ProcessState
	switch {
	case ctx.Err() != nil:
		res.Kind = "aborted"
	case tctx.Err() != nil:
		res.Kind, res.TimedOut = "timed-out", true
	case ps != nil && ps.Exited():
		code := ps.ExitCode()
		res.ExitCode = &code
		res.Kind = "success"
		if code != 0 {
			res.Kind = "command-failure"
		}
	default:
		res.Kind = "command-failure"
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
	}
	return res
}

func startFailed(err error, start time.Time) *ringfence.ExecResult {
	code := 127
	if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, os.ErrNotExist) {
		code = 126
	}
	return &ringfence.ExecResult{
		Kind: "command-failure", ExitCode: &code, Stderr: fmt.Sprintf("procsandbox: %v\n", err),
		DurationMs: time.Since(start).Milliseconds(), Backend: "process",
		Enforcement: ringfence.Enforcement{Files: "none", Network: "none", Resources: "none"},
	}
}
