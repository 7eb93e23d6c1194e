package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

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

// ExecScratch is ExecRequest with the working directory dir, a host path
// inside ScratchDir (a call directory of the code runner) rather than a
// model path in the workspace. The policy is resolved exactly as for
// ExecRequest (its Cwd stays inside the root, where it means nothing more
// than the default); only where the command starts differs. A dir outside
// ScratchDir is refused with pathrule.ErrPathRefused.
func (l *Local) ExecScratch(ctx context.Context, argv []string, dir string, opts ExecOptions, req policy.Request) (*ExecResult, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("ringfence: empty command")
	}
	if l.tempDir == "" || dir == l.tempDir || !policy.Contains(l.tempDir, policy.Clean(dir)) {
		return nil, fmt.Errorf("ringfence: scratch dir outside the private temp dir: %w", pathrule.ErrPathRefused)
	}
	pol, err := policy.Resolve(req, l.defaults)
	if err != nil {
		return nil, err
	}
	cmd, err := l.confine(argv, policy.Clean(dir), l.env(opts.Env), pol)
	if err != nil {
		return nil, err
	}
	ro := l.runOptions(opts, pol, cmd)
	res, err := run.Run(ctx, cmd, ro)
	if err != nil {
		return l.startFailure(cmd, pol, err), nil
	}
	return l.result(cmd, pol, ro, res), nil
}
