package fleetload

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is one `ringfence serve` process with its own directories.
type server struct {
	n                     int
	base, root, home, tmp string
	cmd                   *exec.Cmd
	grpc, rest            string
	log                   *logBuf
	exited                chan error // Wait's result, once
	baseline, last        snapshot
}

// addrRE is compiled on first use: package init stays free (TestPackageInitIsLazy).
var addrRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`ProcessService on (\S+) \(gRPC\), REST on (\S+);`)
})

// startServer runs `BINARY serve` on loopback ports the kernel picks, with
// HOME, TMPDIR and XDG_CONFIG_HOME of its own under dir (no user policy
// file, no state shared with another server), and waits for its address.
func startServer(cfg *Config, n int, dir string) (*server, error) {
	s := &server{n: n, base: dir, root: filepath.Join(dir, "root"), home: filepath.Join(dir, "home"),
		tmp: filepath.Join(dir, "tmp"), log: &logBuf{}, exited: make(chan error, 1)}
	for _, d := range []string{s.root, s.home, s.tmp, filepath.Join(dir, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	args := append([]string{"serve", "--root-dir", s.root, "--grpc-port", "0", "--rest-port", "0"}, cfg.ServeArgs...)
	s.cmd = exec.Command(cfg.Binary, args...)
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "TMPDIR" && !strings.HasPrefix(k, "XDG_") {
			env = append(env, kv)
		}
	}
	s.cmd.Env = append(append(env, "HOME="+s.home, "TMPDIR="+s.tmp, "XDG_CONFIG_HOME="+filepath.Join(dir, "config")), cfg.Env...)
	// A driver that dies takes its servers with it.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.log.add(sc.Text())
			if m := addrRE().FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1:]:
				default:
				}
			}
		}
		s.exited <- s.cmd.Wait() // after stderr's EOF, as Wait wants
	}()
	select {
	case m := <-addr:
		s.grpc, s.rest = m[0], m[1]
		return s, nil
	case err := <-s.exited:
		s.exited <- err
		return nil, fmt.Errorf("server %d ended before serving: %v\n%s", n, err, s.log)
	case <-time.After(cfg.StartTimeout):
		_ = s.cmd.Process.Kill()
		return nil, fmt.Errorf("server %d did not serve within %v:\n%s", n, cfg.StartTimeout, s.log)
	}
}

// stop sends SIGTERM (graceful shutdown) and waits; a server that does
// not exit within timeout is killed and that is an error.
func (s *server) stop(timeout time.Duration) error {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		s.exited <- err
		if err != nil {
			return fmt.Errorf("exit: %v", err)
		}
		return nil
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		err := <-s.exited
		s.exited <- err
		return errors.New("did not exit within " + timeout.String() + " of SIGTERM: killed")
	}
}

// logBuf keeps a server's stderr for the report of a failure.
type logBuf struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuf) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < 200 {
		l.lines = append(l.lines, s)
	}
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
