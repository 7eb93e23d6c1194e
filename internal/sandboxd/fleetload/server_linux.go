package fleetload

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ringfence/ringfence/internal/testenv/serveproc"
)

// server is one `ringfence serve` process with its own directories.
type server struct {
	n                     int
	base, root, home, tmp string
	proc                  *serveproc.Proc
	cmd                   *exec.Cmd // proc.Cmd
	grpc, rest            string
	baseline, last        snapshot
}

// startServer runs `BINARY serve` on loopback ports the kernel picks, with
// HOME, TMPDIR and XDG_CONFIG_HOME of its own under dir (no user policy
// file, no state shared with another server), and waits for its address.
func startServer(cfg *Config, n int, dir string) (*server, error) {
	s := &server{n: n, base: dir, root: filepath.Join(dir, "root"), home: filepath.Join(dir, "home"),
		tmp: filepath.Join(dir, "tmp")}
	for _, d := range []string{s.root, s.home, s.tmp, filepath.Join(dir, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	env := serveproc.Environ(os.Environ(), "HOME="+s.home, "TMPDIR="+s.tmp, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))
	p, err := serveproc.Start(serveproc.Options{Binary: cfg.Binary, StartTimeout: cfg.StartTimeout, LogLines: 200,
		Args: append([]string{"--root-dir", s.root, "--grpc-port", "0", "--rest-port", "0"}, cfg.ServeArgs...),
		Env:  append(env, cfg.Env...)})
	if err != nil {
		return nil, fmt.Errorf("server %d: %w", n, err)
	}
	s.proc, s.cmd, s.grpc, s.rest = p, p.Cmd, p.GRPC, p.REST
	return s, nil
}

// stop sends SIGTERM (graceful shutdown) and waits; a server that does
// not exit within timeout is killed and that is an error, as is an exit
// with a status other than 0.
func (s *server) stop(timeout time.Duration) error {
	err := s.proc.Stop(timeout)
	switch {
	case errors.Is(err, serveproc.ErrKilled):
		return errors.New("did not exit within " + timeout.String() + " of SIGTERM: killed")
	case err != nil:
		return fmt.Errorf("exit: %v", err)
	}
	return nil
}
