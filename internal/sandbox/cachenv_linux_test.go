package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

// With the library's zero Config (no home layer) a cold `go build` works:
// home is read-only, and the toolchain caches go to the sandbox's private
// temp dir. The control: nothing can be made in home, where the cache
// would be by default.
func TestZeroConfigColdGoBuild(t *testing.T) {
	goBin, err := exec.LookPath("go")
	testenv.Need(t, "go on PATH", err)
	// An empty home, no build cache anywhere: not under /tmp (the sandbox's
	// private /tmp would take the writes), where a real home is read-only.
	home, err := os.MkdirTemp("/var/tmp", "rf-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	t.Setenv("HOME", home)
	for _, v := range []string{"GOCACHE", "XDG_CACHE_HOME", "GOFLAGS"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "m.go"), []byte("package m\n\nfunc F() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := New(Config{Root: ws, Env: map[string]string{"GOTOOLCHAIN": "local", "GOPROXY": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.Backend() == "" {
		testenv.Need(t, "a confining backend", errNoConfiningBackend)
	}
	ctx := context.Background()
	res, err := sb.Exec(ctx, []string{goBin, "build", "./..."}, ExecOptions{})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("cold go build with a zero Config: %v %+v", err, res)
	}
	// The build's cache is not in home...
	res, err = sb.Exec(ctx, []string{goBin, "env", "GOCACHE"}, ExecOptions{})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 || strings.HasPrefix(strings.TrimSpace(res.Stdout), home) {
		t.Fatalf("go env GOCACHE: %v %+v", err, res)
	}
	// ...and the control: home, where it would be by default, takes no
	// new directory. (A build pointed there is no control: the go command
	// builds on when its cache directory exists but cannot be written —
	// the test binary's own first `go list`, checking the carried init,
	// may have made it in this home — and, racing its background opening
	// of a missing one, sometimes too: it exited 0 in CI, and 7 times in
	// 30 here. A fresh name under home is beyond both.)
	res, err = sb.Exec(ctx, []string{"/bin/mkdir", "-p", home + "/ringfence-control/go-build"}, ExecOptions{})
	if err != nil || res.ExitCode == nil || *res.ExitCode == 0 || !strings.Contains(res.Stderr, "Read-only file system") {
		t.Fatalf("control: a directory could be made in the read-only home: %v %+v", err, res)
	}
}

type noConfiningBackend struct{}

func (noConfiningBackend) Error() string { return "no backend confines on this host" }

var errNoConfiningBackend error = noConfiningBackend{}
