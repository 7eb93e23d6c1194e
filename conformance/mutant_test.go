package conformance_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/conformance/procsandbox"
)

// mutant is the reference sandbox with one fault: each check must catch
// the fault it is about. This is what shows that no check passes by
// construction.
type mutant struct {
	*procsandbox.Sandbox
	root  string
	fault string
	iso   ringfence.Isolation
	close int
}

func (m *mutant) Isolation() ringfence.Isolation { return m.iso }

func (m *mutant) Exec(ctx context.Context, argv []string, o ringfence.ExecOptions) (*ringfence.ExecResult, error) {
	switch m.fault {
	case "leak-env":
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		for k, v := range o.Env {
			env[k] = v
		}
		o.Env = env
	case "drop-stdin":
		o.Stdin = nil
	case "ignore-dir":
		o.Dir = ""
	case "raw-dir":
		return m.naive(ctx, argv, filepath.Join(m.root, o.Dir), o)
	case "no-tree-kill":
		return m.naive(ctx, argv, filepath.Join(m.root, o.Dir), o)
	}
	res, err := m.Sandbox.Exec(ctx, argv, o)
	if err != nil || res == nil {
		return res, err
	}
	switch m.fault {
	case "exit-zero":
		zero := 0
		res.ExitCode = &zero
	case "merge-stderr":
		res.Stdout, res.Stderr = res.Stdout+res.Stderr, ""
	case "timeout-unreported":
		res.TimedOut = false
	}
	return res, nil
}

// naive runs argv as a plain child and kills only that child on timeout.
func (m *mutant) naive(ctx context.Context, argv []string, dir string, o ringfence.ExecOptions) (*ringfence.ExecResult, error) {
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Stdin, cmd.WaitDelay = dir, o.Stdin, 100e6
	for k, v := range o.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "PATH="+procsandbox.DefaultPath)
	out, _ := cmd.Output()
	res := &ringfence.ExecResult{Stdout: string(out)}
	if ctx.Err() != nil {
		res.TimedOut = true
	} else {
		code := cmd.ProcessState.ExitCode()
		res.ExitCode = &code
	}
	return res, nil
}

func (m *mutant) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	switch m.fault {
	case "raw-paths":
		return os.ReadFile(filepath.Join(m.root, path))
	case "cut-reads":
		f, err := os.Open(filepath.Join(m.root, path))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, max))
	case "missing-is-empty":
		b, err := m.Sandbox.ReadFile(ctx, path, max)
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return b, err
	}
	return m.Sandbox.ReadFile(ctx, path, max)
}

func (m *mutant) WriteFile(ctx context.Context, path string, data []byte) error {
	switch m.fault {
	case "raw-paths":
		return os.WriteFile(filepath.Join(m.root, path), data, 0o644)
	case "follow-links", "in-place-writes":
		if _, err := m.Sandbox.ReadFile(ctx, ".", 1); errors.Is(err, os.ErrNotExist) {
			return err
		}
		p := filepath.Join(m.root, path)
		os.MkdirAll(filepath.Dir(p), 0o755)
		return os.WriteFile(p, data, 0o644)
	case "lossy-writes":
		if len(data) > 0 {
			data = data[:len(data)-1]
		}
	}
	return m.Sandbox.WriteFile(ctx, path, data)
}

func (m *mutant) Close() error {
	m.close++
	if m.fault == "close-twice-fails" && m.close > 1 {
		return errors.New("already closed")
	}
	return m.Sandbox.Close()
}

func TestEveryCheckCanFail(t *testing.T) {
	all := ringfence.Isolation{Filesystem: true, Network: true, Processes: true}
	cases := []struct {
		fault string
		iso   ringfence.Isolation
		fails []string // checks that must fail (at least these)
	}{
		{"close-twice-fails", ringfence.Isolation{}, []string{"sandbox/close-twice"}},
		{"exit-zero", ringfence.Isolation{}, []string{"exec/exit-code"}},
		{"merge-stderr", ringfence.Isolation{}, []string{"exec/stdout-stderr"}},
		{"drop-stdin", ringfence.Isolation{}, []string{"exec/stdin"}},
		{"leak-env", ringfence.Isolation{}, []string{"exec/env-only-given"}},
		{"no-tree-kill", ringfence.Isolation{}, []string{"exec/timeout-stops-tree"}},
		{"timeout-unreported", ringfence.Isolation{}, []string{"exec/timeout-stops-tree"}},
		{"lossy-writes", ringfence.Isolation{}, []string{"files/round-trip"}},
		{"ignore-dir", ringfence.Isolation{}, []string{"files/cwd-is-workspace"}},
		{"cut-reads", ringfence.Isolation{}, []string{"files/read-bound"}},
		{"missing-is-empty", ringfence.Isolation{}, []string{"files/missing"}},
		{"raw-paths", ringfence.Isolation{}, refuseChecks()},
		{"raw-dir", ringfence.Isolation{}, []string{"paths/refuse-exec-dir"}},
		{"follow-links", ringfence.Isolation{}, []string{"paths/symlink-out"}},
		{"in-place-writes", ringfence.Isolation{}, []string{"paths/hardlink-out"}},
		// The reference sandbox claiming what it lacks fails every
		// isolation check: each attack works unconfined.
		{"over-claim", all, isolationChecks()},
	}
	for _, c := range cases {
		t.Run(c.fault, func(t *testing.T) {
			t.Parallel()
			rep := conformance.Run(context.Background(), func() (ringfence.Sandbox, error) {
				root := t.TempDir()
				sb, err := procsandbox.New(procsandbox.Options{Root: root})
				return &mutant{Sandbox: sb, root: root, fault: c.fault, iso: c.iso}, err
			}, conformance.Options{Name: c.fault})
			if rep.Passed {
				t.Errorf("a sandbox with fault %s passed", c.fault)
			}
			got := map[string]conformance.Check{}
			for _, ch := range rep.Checks {
				got[ch.Name] = ch
			}
			for _, name := range c.fails {
				if ch := got[name]; ch.OK || ch.Skipped {
					t.Errorf("fault %s: check %s did not fail: %+v", c.fault, name, ch)
				}
			}
		})
	}
}

func refuseChecks() []string {
	var out []string
	for _, n := range conformance.Names(conformance.Options{}) {
		if strings.HasPrefix(n, "paths/refuse-") && n != "paths/refuse-exec-dir" {
			out = append(out, n)
		}
	}
	return out
}

func isolationChecks() []string {
	var out []string
	for _, n := range conformance.Names(conformance.Options{}) {
		if strings.HasPrefix(n, "isolation/") {
			out = append(out, n)
		}
	}
	return out
}
