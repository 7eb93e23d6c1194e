package remote

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	cmd        *exec.Cmd
	log        *lockedBuf
	done       chan struct{}
	once       sync.Once
}

type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var serveRE = regexp.MustCompile(`ProcessService on (\S+) \(gRPC\), REST on (\S+);`)

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
	argv := append([]string{"serve", "--grpc-port", "0", "--rest-port", "0", "--backend", "linux",
		"--shutdown-timeout", "2s", "--root-dir", root}, args...)
	cmd := exec.Command(serveBin, argv...)
	// The server's own environment: a private home and config (no user
	// policy file), and the test's variables — canaries included — which
	// must never reach a command.
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config", "XDG_STATE_HOME="+home+"/.state")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s := &server{root: root, home: home, cmd: cmd, log: &lockedBuf{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stderr = io.MultiWriter(s.log, pw)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(home)
		return nil, err
	}
	go func() { _ = cmd.Wait(); pw.Close(); close(s.done) }()
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := serveRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
			}
		}
		close(found)
		io.Copy(io.Discard, pr) // the log pipe must never block the server
	}()
	select {
	case m, ok := <-found:
		if !ok {
			s.stop()
			return nil, fmt.Errorf("serve ended before listening:\n%s", s.log.String())
		}
		s.grpc, s.rest = m[1], m[2]
		go func() {
			for range found {
			}
		}()
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("serve did not start:\n%s", s.log.String())
	}
	return s, nil
}

// stop ends the server gracefully (SIGTERM) and waits for it.
func (s *server) stop() error {
	var err error
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
			err = fmt.Errorf("serve did not stop on SIGTERM:\n%s", s.log.String())
		}
		os.RemoveAll(s.home)
	})
	return err
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
