package seccomp

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/testenv"
)

// Environment a helper reads: whether to filter, and with what.
const (
	filterEnv = "RINGFENCE_SECCOMP_FILTER" // "plain" or "unix"; anything else: none
)

// spawn re-executes the test binary as helper name, in a new session (no
// controlling terminal: vhangup and TIOCSTI then touch nothing) with core
// dumps off, and returns its stdout and how it ended.
func spawn(t *testing.T, name string, env ...string) (string, *os.ProcessState) {
	t.Helper()
	return spawnB(t, name, env...)
}

func spawnB(t testing.TB, name string, env ...string) (string, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + name}, env...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// A helper starts in a scratch directory, never the package source: the
	// guard supervisor once resolved a command's /proc/self/cwd against its
	// own cwd and left a file ("pc") in the source tree that was committed.
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("helper %s: %v", name, err)
	}
	if errb.Len() > 0 {
		t.Logf("helper %s stderr: %s", name, errb.String())
	}
	return out.String(), cmd.ProcessState
}

// killedBySIGSYS reports whether the seccomp filter killed the process.
func killedBySIGSYS(ps *os.ProcessState) bool {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGSYS
}

// results parses "name=value" lines.
func results(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = v
		}
	}
	return m
}

// installFromEnv is the helpers' common start: no core files, then the
// filter the parent asked for (or none, for the control run).
func installFromEnv() (*os.File, error) {
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	switch os.Getenv(filterEnv) {
	case "plain":
		return buildInstall(Options{})
	case "unix":
		return buildInstall(Options{DenyUnixConnect: true})
	}
	return nil, nil
}

func buildInstall(opts Options, flags ...Flag) (*os.File, error) {
	prog, err := Build(opts)
	if err != nil {
		return nil, err
	}
	return Install(prog, flags...)
}

// needSeccomp skips (or fails under RINGFENCE_REQUIRE_ALL=1) where the
// kernel has no seccomp filters.
func needSeccomp(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		testenv.Need(t, "a supported architecture", &ArchError{Arch: runtime.GOARCH})
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	testenv.Need(t, "seccomp", err)
}
