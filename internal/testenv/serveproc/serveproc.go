// Package serveproc starts `ringfence serve` as a process of its own and
// finds where it listens, for the tests and the load driver that need a
// real server (remote's tests, internal/sandboxd/fleetload): one way to
// start it, read its address line, keep its log and stop it.
package serveproc

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// listening is serve's line saying where it listens (cmd/ringfence
// serve.go prints it once both listeners are up).
var listening = regexp.MustCompile(`ProcessService on (\S+) \(gRPC\), REST on (\S+);`)

// Addrs finds serve's listening line in its log text: the gRPC and REST
// addresses (host:port), ok false before it was printed.
func Addrs(log string) (grpc, rest string, ok bool) {
	m := listening.FindStringSubmatch(log)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

// Options says how to start one server.
type Options struct {
	Binary string   // the ringfence binary
	Args   []string // after "serve" (ports, root, policy …)
	// Env is the server's whole environment (nil: none). The caller
	// decides it: a server must not share HOME or XDG dirs by accident.
	Env []string
	// StartTimeout bounds the wait for the listening line (default 60s).
	StartTimeout time.Duration
	// LogLines bounds the log kept for error reports (default 400).
	LogLines int
}

// Proc is one running server.
type Proc struct {
	GRPC, REST string // where it listens
	Cmd        *exec.Cmd

	log     logBuf
	exited  chan struct{}
	err     error // Wait's, once exited is closed
	stopErr error
	once    sync.Once
}

// Start runs `Binary serve Args…`, killed by the kernel if the caller
// dies (Pdeathsig), and waits until it listens.
func Start(o Options) (*Proc, error) {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.LogLines <= 0 {
		o.LogLines = 400
	}
	cmd := exec.Command(o.Binary, append([]string{"serve"}, o.Args...)...)
	cmd.Env = o.Env
	cmd.SysProcAttr = dieWithParent()
	p := &Proc{Cmd: cmd, log: logBuf{max: o.LogLines}, exited: make(chan struct{})}
	pr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan [2]string, 1)
	go func() {
		// Read to EOF whatever happens: the log pipe must never block
		// the server.
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.log.add(sc.Text())
			if g, r, ok := Addrs(sc.Text()); ok {
				select {
				case addr <- [2]string{g, r}:
				default:
				}
			}
		}
		p.err = cmd.Wait() // after stderr's EOF, as Wait wants
		close(p.exited)
	}()
	select {
	case a := <-addr:
		p.GRPC, p.REST = a[0], a[1]
		return p, nil
	case <-p.exited:
		return nil, fmt.Errorf("serve ended before listening: %v\n%s", p.err, p.Log())
	case <-time.After(o.StartTimeout):
		_ = cmd.Process.Kill()
		<-p.exited
		return nil, fmt.Errorf("serve did not listen within %v:\n%s", o.StartTimeout, p.Log())
	}
}

// Exited is closed once the server has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Log is what the server wrote to stderr (its first LogLines lines).
func (p *Proc) Log() string { return p.log.String() }

// ErrKilled: the server did not exit within the timeout of SIGTERM.
var ErrKilled = errors.New("serve did not exit after SIGTERM: killed")

// Stop sends SIGTERM (graceful shutdown) and waits up to timeout; a
// server still running then is killed and Stop returns ErrKilled.
// Otherwise it returns the exit's error (nil for status 0). Safe to call
// again: later calls return the first's answer.
func (p *Proc) Stop(timeout time.Duration) error {
	var err error
	p.once.Do(func() {
		_ = p.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
			err = p.err
		case <-time.After(timeout):
			_ = p.Cmd.Process.Kill()
			<-p.exited
			err = fmt.Errorf("%w (within %v):\n%s", ErrKilled, timeout, p.Log())
		}
		p.stopErr = err
	})
	return p.stopErr
}

// logBuf keeps the first max lines of a server's stderr.
type logBuf struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (l *logBuf) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < l.max {
		l.lines = append(l.lines, s)
	}
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Environ is env without HOME, TMPDIR and XDG_* (for a server given its
// own), plus extra.
func Environ(env []string, extra ...string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != "HOME" && k != "TMPDIR" && !strings.HasPrefix(k, "XDG_") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
