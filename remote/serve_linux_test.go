package remote

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv/serveproc"
)

// serveBin is `ringfence` built from this tree by TestMain as it ships
// (static, CGO_ENABLED=0), so the server under test is the real `ringfence
// serve`, a process of its own. It is not built with -race even when the
// tests run with it: the race detector watches this package's client
// here (the server's own race tests are internal/sandboxd's), and a race
// build of 175 short-lived servers would take minutes on a loaded CI host.
var serveBin string

func buildServe() (string, func(), error) {
	dir, err := os.MkdirTemp("", "remote-serve-bin-")
	if err != nil {
		return "", nil, err
	}
	bin := filepath.Join(dir, "ringfence")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "../cmd/ringfence")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("go build ringfence: %v\n%s", err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// server is one `ringfence serve` started by a test.
type server struct {
	grpc, rest string
	root, home string
	proc       *serveproc.Proc
}

// startServe starts `ringfence serve --root-dir root` on loopback with
// free ports and args, and stops it (SIGTERM) when the test ends. root ""
// is a fresh temp dir.
func startServe(t testing.TB, root string, args ...string) *server {
	t.Helper()
	if root == "" {
		root = t.TempDir()
	}
	s, err := launchServe(root, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// launchServe starts a server without a test to fail: the caller stops it.
func launchServe(root string, args ...string) (*server, error) {
	home, err := os.MkdirTemp("", "remote-serve-home-")
	if err != nil {
		return nil, err
	}
	argv := append([]string{"--grpc-port", "0", "--rest-port", "0", "--backend", "linux",
		"--shutdown-timeout", "2s", "--root-dir", root}, args...)
	// The server's own environment: a private home and config (no user
	// policy file), and the test's variables — canaries included — which
	// must never reach a command.
	p, err := serveproc.Start(serveproc.Options{Binary: serveBin, Args: argv,
		Env: append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.state")})
	if err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	return &server{grpc: p.GRPC, rest: p.REST, root: root, home: home, proc: p}, nil
}

// stop ends the server gracefully (SIGTERM) and waits for it; only a
// server that had to be killed is an error (a test may have stopped it
// already, with any status).
func (s *server) stop() error {
	err := s.proc.Stop(30 * time.Second)
	os.RemoveAll(s.home)
	if errors.Is(err, serveproc.ErrKilled) {
		return err
	}
	return nil
}

// client is a remote Sandbox on s, closed when the test ends.
func (s *server) client(t testing.TB, o Options) *Sandbox {
	t.Helper()
	o.GRPC, o.REST = s.grpc, s.rest
	sb, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}
