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
// temp dir. The control points GOCACHE back at the read-only home and the
// same build fails writing it.
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
	res, err = sb.Exec(ctx, []string{goBin, "build", "-a", "./..."}, ExecOptions{Env: map[string]string{"GOCACHE": home + "/.cache/go-build"}})
	if err != nil || res.ExitCode == nil || *res.ExitCode == 0 || !strings.Contains(res.Stderr, "read-only file system") {
		t.Fatalf("control: a cache in the read-only home should fail the build: %v %+v", err, res)
	}
}

type noConfiningBackend struct{}

func (noConfiningBackend) Error() string { return "no backend confines on this host" }

var errNoConfiningBackend error = noConfiningBackend{}
