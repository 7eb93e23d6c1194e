package linux

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// testSession is a session init started the way the supervisor starts
// one, speaking the control protocol directly (the facade's client is in
// the root package, which no internal test may import).
type testSession struct {
	t    *testing.T
	c    *confine.Cmd
	cmd  *exec.Cmd
	ctl  *os.File
	next uint64
}

func startTestSession(t *testing.T, p *policy.Policy, env []string) *testSession {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Policy: p, Env: env, Session: true})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	if c.Control == nil {
		t.Fatal("a session Cmd without a control socket")
	}
	cmd := &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, ExtraFiles: c.ExtraFiles, SysProcAttr: c.SysProcAttr}
	if err := cmd.Start(); err != nil {
		c.Cleanup()
		c.Control.Close()
		t.Fatal(err)
	}
	for _, f := range c.ExtraFiles {
		f.Close()
	}
	s := &testSession{t: t, c: c, cmd: cmd, ctl: c.Control}
	t.Cleanup(s.close)
	if err := c.Setup(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	sum := make(chan status.Summary, 1)
	go func() { sum <- status.Read(c.Status) }()
	if m := s.recv(); m == nil || m.Kind != initproc.ReportReady {
		s.close()
		t.Fatalf("no ready report: %+v (status %+v)", m, <-sum)
	}
	return s
}

func (s *testSession) recv() *initproc.ControlMsg {
	buf := make([]byte, initproc.MaxControlMsg)
	n, _, err := unix.Recvfrom(int(s.ctl.Fd()), buf, 0)
	if err != nil || n == 0 {
		return nil
	}
	m, err := initproc.DecodeReport(buf[:n])
	if err != nil {
		s.t.Fatalf("bad report: %v", err)
	}
	return m
}

// run runs argv in the session with stdin (nil: an empty pipe) and
// returns its output and the init's reports about it.
func (s *testSession) run(argv []string, env []string, dir string, stdin *os.File) (inittest.Result, []*initproc.ControlMsg) {
	s.t.Helper()
	s.next++
	id := s.next
	if stdin == nil {
		r, w, err := os.Pipe()
		if err != nil {
			s.t.Fatal(err)
		}
		w.Close()
		defer r.Close()
		stdin = r
	}
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	b, _ := json.Marshal(initproc.ControlMsg{Op: initproc.OpStart, ID: id, Argv: argv, Env: env, Dir: dir})
	err := unix.Sendmsg(int(s.ctl.Fd()), b, unix.UnixRights(int(stdin.Fd()), int(outW.Fd()), int(errW.Fd())), nil, 0)
	outW.Close()
	errW.Close()
	if err != nil {
		s.t.Fatal(err)
	}
	var out, errb bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { io.Copy(&out, outR); wg.Done() }()
	go func() { io.Copy(&errb, errR); wg.Done() }()
	res := inittest.Result{Code: -1}
	var reports []*initproc.ControlMsg
	for {
		m := s.recv()
		if m == nil {
			s.t.Fatal("the session init ended")
		}
		if m.ID != id {
			continue
		}
		reports = append(reports, m)
		switch m.Kind {
		case status.Started:
			res.Status.Started = true
			continue
		case status.Failed:
			res.Status.Failure = m.Event
		case status.Exited:
			res.Status.Exit = m.Event
			if m.Event.ExitCode != nil {
				res.Code = *m.Event.ExitCode
			} else {
				res.Code = 128 + int(unix.SignalNum(m.Event.Signal))
			}
		}
		break
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second): // a background child kept the pipe
	}
	outR.Close()
	errR.Close()
	res.Stdout, res.Stderr = out.String(), errb.String()
	return res, reports
}

func (s *testSession) close() {
	if s.ctl == nil {
		return
	}
	s.ctl.Close() // the init reads EOF, exits, and its pid namespace ends
	s.ctl = nil
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
		s.t.Error("the session init did not end when its control socket closed")
	}
	s.c.Cleanup()
}

// sessionScript runs each attack as the second command of a fresh session
// (the first, `true`, proves the session serves before the attack runs),
// then closes the session.
func sessionScript(t *testing.T, e *inittest.Env, p *policy.Policy, script string, stdin *os.File) inittest.Result {
	t.Helper()
	s := startTestSession(t, p, e.Vars())
	if res, _ := s.run([]string{"true"}, e.Vars(), p.Root, nil); res.Code != 0 {
		t.Fatalf("warm-up: %+v", res)
	}
	res, _ := s.run([]string{"/bin/sh", "-c", script}, e.Vars(), p.Root, stdin)
	// Checked once the session has ended: in a session a background
	// process outlives its command by design ("outlive" asks whether it
	// outlives the sandbox, here the session).
	s.close()
	return res
}

// The whole escape suite, each attack run inside a session: a process the
// session's init starts is held exactly as a one-shot command is.
func TestSessionAttacks(t *testing.T) {
	inittest.RunSuite(t, sessionScript, linuxGaps)
}

// forgeScript exits 0 when it holds any SEQPACKET socket (the control
// channel's type) it can send on: inherited, or taken from its init with
// pidfd_getfd.
const forgeScript = `/usr/bin/python3 -c "
import ctypes, os, socket, sys
def seqpacket(fd):
    try:
        s = socket.socket(fileno=os.dup(fd))
    except OSError:
        return False
    ok = s.type == socket.SOCK_SEQPACKET
    if ok:
        try:
            s.send(b'{\"kind\":\"exited\",\"id\":1,\"event\":{\"kind\":\"exited\",\"exitCode\":0}}')
        except OSError:
            ok = False
    s.close()
    return ok
for name in os.listdir('/proc/self/fd'):
    if seqpacket(int(name)):
        sys.exit(0)
libc = ctypes.CDLL(None, use_errno=True)
for pid in (1, os.getppid()):
    try:
        pfd = os.pidfd_open(pid)
    except OSError:
        continue
    for fd in range(3, 64):
        got = libc.syscall(438, pfd, fd, 0)
        if got >= 0 and seqpacket(got):
            sys.exit(0)
sys.exit(1)
"`

// No command can reach the control socket: not inherited (close-on-exec
// before the view is built), not taken from the init (not dumpable,
// seccomp, no capabilities). Control: the same script holding a leaked
// end of a SEQPACKET pair finds it and forges a report.
func TestSessionControlUnreachable(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET, 0) // no CLOEXEC: leaked
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(pair[0])
	defer syscall.Close(pair[1])
	ctl := exec.Command("/bin/sh", "-c", forgeScript)
	ctl.ExtraFiles = []*os.File{os.NewFile(uintptr(pair[1]), "leak")}
	if out, err := ctl.CombinedOutput(); err != nil {
		t.Fatalf("control: a leaked channel was not found and forged on: %v %s", err, out)
	}
	buf := make([]byte, 512)
	if n, _ := syscall.Read(pair[0], buf); !strings.Contains(string(buf[:n]), `"exited"`) {
		t.Fatalf("control: forged report not received: %q", buf[:n])
	}
	e := inittest.NewEnv(t)
	s := startTestSession(t, e.Policy(policy.NetDeny), e.Vars())
	res, _ := s.run([]string{"/bin/sh", "-c", forgeScript}, e.Vars(), e.Root, nil)
	if res.Code == 0 {
		t.Fatalf("a command in the session reached a SEQPACKET socket (stderr %q)", res.Stderr)
	}
	// The session still serves, and only what it was asked.
	if res, _ := s.run([]string{"true"}, e.Vars(), e.Root, nil); res.Code != 0 {
		t.Fatalf("after the attempt: %+v", res)
	}
}

// A background process outlives the command that started it; closing the
// control socket ends it with the init. Checked from the host by a marker
// in its argv.
func TestSessionBackgroundLivesUntilClose(t *testing.T) {
	e := inittest.NewEnv(t)
	s := startTestSession(t, e.Policy(policy.NetDeny), e.Vars())
	res, _ := s.run([]string{"/bin/sh", "-c", `sleep 1000` + e.Mark + ` >/dev/null 2>&1 &`}, e.Vars(), e.Root, nil)
	if res.Code != 0 {
		t.Fatalf("%+v", res)
	}
	time.Sleep(100 * time.Millisecond)
	if len(inittest.SurvivorPids(e.Mark)) == 0 {
		t.Fatal("the background process did not outlive its command")
	}
	s.close()
	deadline := time.Now().Add(5 * time.Second)
	for len(inittest.SurvivorPids(e.Mark)) > 0 {
		if time.Now().After(deadline) {
			pids := inittest.SurvivorPids(e.Mark)
			inittest.KillPids(pids)
			t.Fatalf("survivors after close: %v", pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A malformed or unknown request is refused by id and the init serves on.
func TestSessionRefusesBadRequests(t *testing.T) {
	e := inittest.NewEnv(t)
	s := startTestSession(t, e.Policy(policy.NetDeny), e.Vars())
	fd := int(s.ctl.Fd())
	for _, bad := range []string{`{"op":"start","id":7,"argv":[],"dir":"/"}`, `{"op":"start","id":7,"argv":["true"],"dir":"rel"}`,
		`{"op":"launch","id":7}`, `{"op":"start","id":7,"argv":["true"],"dir":"/"}`} {
		// The last is well formed but carries no descriptors.
		if err := unix.Sendmsg(fd, []byte(bad), nil, nil, 0); err != nil {
			t.Fatal(err)
		}
		m := s.recv()
		if m == nil || m.ID != 7 || m.Kind != status.Failed {
			t.Fatalf("%s: %+v", bad, m)
		}
	}
	if res, _ := s.run([]string{"true"}, e.Vars(), e.Root, nil); res.Code != 0 {
		t.Fatalf("after bad requests: %+v", res)
	}
	res, _ := s.run([]string{"no-such-program"}, e.Vars(), e.Root, nil)
	if res.Status.Failure == nil || res.Status.Failure.Reason != status.NotFound {
		t.Fatalf("missing program: %+v", res.Status)
	}
}

func TestSessionAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestSessionAttacks|TestSessionControlUnreachable|TestSessionBackgroundLivesUntilClose)$")
}
