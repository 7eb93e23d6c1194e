package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence"
)

// env is what one check works with: its fresh sandbox and a directory on
// the host, outside any workspace, that the check owns and removes.
type env struct {
	ctx  context.Context
	sb   ringfence.Sandbox
	opts Options
	host string // a host directory outside the sandbox's workspace
	dir  string // where sh runs: "" (the root) or workDir
}

// workDir is where attacks run: a directory a write made, so a sandbox
// that cannot create files directly in its root (a known trade of some
// backends, judged by files/round-trip) still lets every attack be tried.
const workDir = "work"

// inWorkDir makes workDir and runs later scripts there.
func (e *env) inWorkDir() error {
	if err := e.sb.WriteFile(e.ctx, workDir+"/.keep", nil); err != nil {
		return fmt.Errorf("setup: write_file %s/.keep: %w", workDir, err)
	}
	e.dir = workDir
	return nil
}

func newEnv(ctx context.Context, sb ringfence.Sandbox, opts Options) (*env, error) {
	dir, err := os.MkdirTemp("", "conformance-host-")
	if err != nil {
		return nil, fmt.Errorf("host temp dir: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &env{ctx: ctx, sb: sb, opts: opts, host: real}, nil
}

func (e *env) cleanup() { os.RemoveAll(e.host) }

// exec runs argv and insists on a result.
func (e *env) exec(argv []string, o ringfence.ExecOptions) (*ringfence.ExecResult, error) {
	res, err := e.sb.Exec(e.ctx, argv, o)
	if err != nil {
		return nil, fmt.Errorf("exec %s: %w", argv[0], err)
	}
	if res == nil {
		return nil, fmt.Errorf("exec %s: no result and no error", argv[0])
	}
	return res, nil
}

// sh runs a shell script in the workspace root.
func (e *env) sh(script string, vars map[string]string) (*ringfence.ExecResult, error) {
	return e.exec([]string{"sh", "-c", script}, ringfence.ExecOptions{Env: vars, Dir: e.dir})
}

// shOK runs a script that must exit 0.
func (e *env) shOK(script string, vars map[string]string) (*ringfence.ExecResult, error) {
	res, err := e.sh(script, vars)
	if err != nil {
		return nil, err
	}
	if code := exitCode(res); code != 0 {
		return res, fmt.Errorf("setup command exited %s: %s", showCode(res), clip(res.Stderr))
	}
	return res, nil
}

// attackDone is what an attack script prints last: without it the attack
// never ran, and a host left unchanged proves nothing.
const attackDone = "conformance-attack-done"

// attack runs an attack script and insists that it ran to its end (its
// individual steps may fail: that is the sandbox holding).
func (e *env) attack(script string, vars map[string]string) (*ringfence.ExecResult, error) {
	res, err := e.sh(script+"\necho "+attackDone, vars)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(res.Stdout, attackDone) {
		return nil, fmt.Errorf("the attack command did not run: kind %q, exit %s, stderr %s", res.Kind, showCode(res), clip(res.Stderr))
	}
	return res, nil
}

// victim writes a host file the sandbox must not change, and returns its
// path and content.
func (e *env) victim(name string) (string, string, error) {
	path := filepath.Join(e.host, name)
	content := "original " + token()
	return path, content, os.WriteFile(path, []byte(content), 0o644)
}

// unchanged reports a changed or removed host file.
func unchanged(path, want string) error {
	got, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("host file %s was removed", path)
	case err != nil:
		return fmt.Errorf("host file %s: %w", path, err)
	case string(got) != want:
		return fmt.Errorf("host file %s was changed", path)
	}
	return nil
}

// absent reports a host file that exists.
func absent(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("host file %s was created", path)
	}
	return nil
}

func token() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func exitCode(res *ringfence.ExecResult) int {
	if res.ExitCode == nil {
		return -1
	}
	return *res.ExitCode
}

func showCode(res *ringfence.ExecResult) string {
	if res.ExitCode == nil {
		return "nil (kind " + string(res.Kind) + ")"
	}
	return fmt.Sprint(*res.ExitCode)
}

// clip keeps a detail short: output from a sandbox is evidence, not a log.
func clip(s string) string {
	const max = 200
	s = strings.TrimSpace(s)
	if len(s) > max {
		return fmt.Sprintf("%q…", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// joinErrs joins the failures of a check's several routes.
func joinErrs(errs []error) error { return errors.Join(errs...) }
