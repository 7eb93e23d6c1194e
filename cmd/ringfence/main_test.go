package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/testenv"
)

// TestMain lets this test binary act as the sandbox init, the subreaper and
// bwrap's exec shim: a confined run re-executes the running binary.
func TestMain(m *testing.M) {
	entry.Role(cliMainEnv, func(string) int { // started by cliProcess: be ringfence itself
		return execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	})
	entry.Dispatch()
	// ringfence run keeps a private home layer under $HOME: tests must
	// never write the real home of whoever runs them.
	realHome = os.Getenv("HOME")
	home, err := os.MkdirTemp("", "ringfence-cmd-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Unsetenv("XDG_STATE_HOME")
	code := m.Run()
	_, _ = ringfence.ClearHome(ringfence.HomeConfig{Dir: home}, "")
	os.RemoveAll(home)
	os.Exit(code)
}

// realHome is HOME before TestMain replaced it: where the go command's
// module and build caches are (tests that run `go` need them).
var realHome string

// cli runs ringfence with args in dir and returns its exit code and output.
func cli(t *testing.T, dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errOut bytes.Buffer
	code := execute(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// runJSON runs `ringfence run --json` and decodes the result.
func runJSON(t *testing.T, dir string, args ...string) (int, ringfence.ExecResult) {
	t.Helper()
	code, out, errOut := cli(t, dir, "", append([]string{"run", "--json"}, args...)...)
	var res ringfence.ExecResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("run %v: exit %d, output is not one JSON object: %v\nstdout: %s\nstderr: %s", args, code, err, out, errOut)
	}
	return code, res
}

// needBackend fails (or skips, outside CI) when no backend confines here.
func needBackend(t *testing.T, name string) {
	t.Helper()
	sb, err := ringfence.New(ringfence.Config{Root: t.TempDir(), Backend: name})
	if err == nil {
		defer sb.Close()
		if sb.Backend() == "" {
			err = errNoBackend
		}
	}
	testenv.Need(t, "the "+name+" backend", err)
}

type noBackend struct{}

func (noBackend) Error() string { return "no backend confines on this host" }

var errNoBackend error = noBackend{}

func workspace(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
