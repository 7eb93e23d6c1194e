package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/execpath"
	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// Exec implements Sandbox: argv under the deployment's own policy.
func (l *Local) Exec(ctx context.Context, argv []string, opts ExecOptions) (*ExecResult, error) {
	return l.ExecRequest(ctx, argv, opts, policy.Request{})
}

// ExecRequest runs argv under the policy resolved from req, which may only
// narrow the deployment's defaults (or widen them with a minted approval).
// An error means nothing ran: the policy was refused (policy.ErrPolicy),
// no backend can enforce it (policy.ErrUnavailable), or the working
// directory is refused (pathrule.ErrPathRefused). Everything that happened
// once the runner was started is in the result.
func (l *Local) ExecRequest(ctx context.Context, argv []string, opts ExecOptions, req policy.Request) (*ExecResult, error) {
	if err := startable(ctx, argv); err != nil {
		return nil, err
	}
	dir, err := l.hostDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	if req.Cwd == "" {
		req.Cwd = dir
	}
	return l.exec(ctx, argv, dir, opts, req)
}

// ExecScratch is ExecRequest with the working directory dir, a host path
// inside ScratchDir (a call directory of the code runner) rather than a
// model path in the workspace (opts.Dir is not used). The policy is
// resolved exactly as for ExecRequest (its Cwd stays inside the root,
// where it means nothing more than the default); only where the command
// starts differs. A dir outside ScratchDir is refused with
// pathrule.ErrPathRefused.
func (l *Local) ExecScratch(ctx context.Context, argv []string, dir string, opts ExecOptions, req policy.Request) (*ExecResult, error) {
	if err := startable(ctx, argv); err != nil {
		return nil, err
	}
	if l.tempDir == "" || dir == l.tempDir || !policy.Contains(l.tempDir, policy.Clean(dir)) {
		return nil, fmt.Errorf("ringfence: scratch dir outside the private temp dir: %w", pathrule.ErrPathRefused)
	}
	return l.exec(ctx, argv, policy.Clean(dir), opts, req)
}

// startable refuses, before anything is resolved, a call that cannot run.
func startable(ctx context.Context, argv []string) error {
	if len(argv) == 0 || argv[0] == "" {
		return errors.New("ringfence: empty command")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("ringfence: not started: %w", err)
	}
	return nil
}

// exec is the one pipeline of a one-shot command, whatever its working
// directory (dir, a checked host path): resolve → confine → run →
// classify → narrate.
func (l *Local) exec(ctx context.Context, argv []string, dir string, opts ExecOptions, req policy.Request) (*ExecResult, error) {
	pol, err := l.Policy(req)
	if err != nil {
		return nil, err
	}
	env := l.env(opts.Env)
	cmd, err := l.confine(argv, dir, env, pol)
	if err != nil {
		return nil, err
	}
	if n := netOptions(opts); n != nil && cmd.SetNet != nil {
		cmd.SetNet(n)
	}
	ro := l.runOptions(opts, pol, cmd)
	ro.Timeout, ro.KillAfter, ro.Terminal = withDeadline(ctx, ro.Timeout), l.killAfter(), opts.Terminal.run()
	res, err := run.Run(ctx, cmd, ro)
	var out *ExecResult
	if err != nil {
		out = l.startFailure(cmd, pol, err)
	} else {
		out = l.result(cmd, pol, ro, res)
	}
	out.Env = envNames(env)
	return out, nil
}

// ScratchDir is the sandbox's private temp dir on the host: the directory
// workspace-write makes writable besides the root (and TMPDIR for every
// command). The code runner makes each call's own directory inside it.
func (l *Local) ScratchDir() string { return l.tempDir }

// LookPath finds a program on the PATH commands get (the configured one,
// not ringfence's own), as the backends do inside the sandbox, which sees
// the host's system directories. ok is false when it is not there, and
// for a name holding a slash (a bare program name is expected).
func (l *Local) LookPath(name string) (string, bool) {
	if name == "" || strings.Contains(name, "/") {
		return "", false
	}
	p := lookPath(name, l.env(nil))
	return p, p != name
}

// confine asks the selected backend for the argv to start. Only a
// danger-full-access policy runs unconfined, and then knowingly.
func (l *Local) confine(argv []string, dir string, env []string, pol *policy.Policy) (*confine.Cmd, error) {
	if !pol.Confining() {
		return unconfined(argv, dir, env), nil
	}
	if l.provider == nil {
		return nil, &confine.UnavailableError{Tried: []string{"none"}, Reasons: []string{"no backend selected"}}
	}
	return l.provider.Confine(confine.Request{Argv: argv, Dir: dir, Env: env, Policy: pol,
		MountPath: l.cfg.MountPath, Home: l.home})
}

func unconfined(argv []string, dir string, env []string) *confine.Cmd {
	return &confine.Cmd{
		Path: lookPath(argv[0], env), Args: argv, Env: env, Dir: dir,
		Backend:     "none",
		Enforcement: confine.Enforcement{Files: confine.FilesNone, Network: confine.NetNone, Reasons: []string{"danger-full-access: not confined"}},
		Dialect:     outcome.Dialect{Backend: "none"},
		TreeKill:    confine.KillProcessGroup,
	}
}

// env builds the command's environment: the host's variables that
// cfg.EnvPolicy lets through (by default policy.DefaultEnv's allow-list:
// what tools need, never what looks like a credential), the configured
// variables, the private TMPDIR (the host's own TMPDIR never passes: it
// names a directory the sandbox may not show), then the call's own.
func (l *Local) env(extra map[string]string) []string {
	vars, _ := l.cfg.EnvPolicy.Build(os.Environ())
	if l.homeDir != "" {
		vars["HOME"] = l.homeDir
	}
	for k, v := range l.cfg.Env {
		vars[k] = v
	}
	if l.tempDir != "" {
		vars["TMPDIR"] = l.tempDir
	}
	for k, v := range extra {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	if l.home == nil && l.tempDir != "" && !l.cfg.EnvPolicy.Clear {
		// No home layer (the library's default): home is read-only, so a
		// cold `go build` or `npm install` would fail writing its cache
		// there. The toolchain caches go to this sandbox's private temp
		// dir instead (where the caller set none), gone with Close. A
		// Clear environment policy is the strict one: nothing is added.
		out, _ = confine.CacheEnv(out, l.tempDir+"/cache")
	}
	sort.Strings(out)
	return out
}

// envNames are the names (never the values) of env, for the result.
func envNames(env []string) []string {
	names := make([]string, 0, len(env))
	for _, kv := range env {
		n, _, _ := strings.Cut(kv, "=")
		names = append(names, n)
	}
	return names
}

func (l *Local) runOptions(opts ExecOptions, pol *policy.Policy, cmd *confine.Cmd) run.Options {
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = l.cfg.Timeout
	}
	return run.Options{
		Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr,
		MaxStdout: l.cfg.MaxOutput, MaxStderr: l.cfg.MaxOutput,
		Timeout: timeout, Limits: pol.Limits,
		// Streamed live, every byte reaches the reader; the bounded copy only
		// feeds classification, so a long build is not stopped for talking.
		KeepRunningPastCeiling: opts.Stdout != nil || opts.Stderr != nil,
		// A process-group tree runs under the subreaper, so a setsid'd
		// descendant or a SIGKILL of ringfence leaves no survivor; a pid
		// namespace needs none (its init's death ends everything).
		Reaper: cmd.TreeKill == confine.KillProcessGroup,
	}
}

// NarrationContext is what narration may say about this deployment under
// pol: the mount path, the mode, the writable roots as the model sees them,
// and the host root (only so that it is scrubbed).
func (l *Local) NarrationContext(pol *policy.Policy) outcome.Context { return l.narration(pol) }

// narration is what the model may be told about this deployment.
func (l *Local) narration(pol *policy.Policy) outcome.Context {
	c := outcome.Context{MountPath: l.cfg.MountPath, Mode: pol.Mode.String(), HostRoot: l.defaults.Root,
		PrivateTmp: scratchFate(l.traits(), pol.Mode) == "discarded", Audience: l.cfg.Audience}
	for _, root := range pol.WritableRoots().Roots {
		c.WriteRoots = append(c.WriteRoots, l.modelPath(root))
	}
	return c
}

// modelPath shows a host path the way the model sees it: under the mount
// path when inside the root, the private temp dir as /tmp, else as is
// (system paths such as /usr are the same inside the sandbox).
func (l *Local) modelPath(host string) string {
	switch {
	case host == l.defaults.Root:
		return l.cfg.MountPath
	case strings.HasPrefix(host, l.defaults.Root+"/"):
		return l.cfg.MountPath + host[len(l.defaults.Root):]
	case host == l.tempDir && strings.HasPrefix(host, "/tmp/"):
		return "/tmp"
	case host == l.tempDir:
		return "$TMPDIR" // not under /tmp: its host path is not shown
	}
	return host
}

// lookPath finds a program on the command's own PATH (not ringfence's), as
// the confining backends do inside the sandbox, with execpath's rule: only
// absolute PATH entries are searched, never the model-written working
// directory. A name it cannot find is returned as is, so the start fails
// with "not found" like a shell's.
func lookPath(name string, env []string) string {
	if p, err := execpath.Find(name, execpath.PathOf(env, "")); err == nil {
		return p
	}
	return name
}
