//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// newSession is a session on the linux backend under the agent defaults
// with loopback networking, closed at the test's end.
func newSession(t *testing.T, o ...SessionOptions) (*Local, *Session) {
	t.Helper()
	l := newLocal(t, Config{Backend: "linux", Defaults: loopbackDefaults()})
	return l, openSession(t, l, false, o...)
}

func runIn(t *testing.T, s *Session, c Cmd) *ExecResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := s.Start(ctx, c)
	if err != nil {
		t.Fatalf("start %q: %v", c.Argv, err)
	}
	res, err := p.Wait(ctx)
	if err != nil {
		t.Fatalf("wait %q: %v", c.Argv, err)
	}
	return res
}

func sh(script string) Cmd { return Cmd{Argv: []string{"/bin/sh", "-c", script}} }

func TestSessionRunsAndClassifies(t *testing.T) {
	_, s := newSession(t)
	res := runIn(t, s, sh("echo out; echo err >&2; exit 3"))
	if res.Kind != KindCommandFailure || res.ExitCode == nil || *res.ExitCode != 3 ||
		res.Stdout != "out\n" || res.Stderr != "err\n" {
		t.Fatalf("got %+v", res)
	}
	if res.Backend != "linux" || res.Narration == "" {
		t.Fatalf("backend %q narration %q", res.Backend, res.Narration)
	}
	res = runIn(t, s, Cmd{Argv: []string{"no-such-program-here"}})
	if res.Outcome.Kind != outcome.NotFound {
		t.Fatalf("missing program: %s (%s)", res.Kind, res.Narration)
	}
	res = runIn(t, s, sh("pwd"))
	if strings.TrimSpace(res.Stdout) != "/workspace" {
		t.Fatalf("working directory %q, want /workspace", res.Stdout)
	}
}

// /tmp and background processes outlive the call that made them.
func TestSessionTmpAndBackgroundServerPersist(t *testing.T) {
	_, s := newSession(t)
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	res := runIn(t, s, sh("echo kept > /tmp/note && python3 -m http.server 18765 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 0.1"))
	if res.Kind != KindSuccess {
		t.Fatalf("call 1: %s %s", res.Kind, res.Stderr)
	}
	res = runIn(t, s, sh("cat /tmp/note"))
	if res.Stdout != "kept\n" {
		t.Fatalf("call 2 /tmp: %q %s", res.Stdout, res.Stderr)
	}
	res = runIn(t, s, Cmd{Argv: []string{"python3", "-c", `
import time, urllib.request
for i in range(100):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:18765/", timeout=2).status); break
    except OSError:
        time.sleep(0.05)
`}})
	if strings.TrimSpace(res.Stdout) != "200" {
		t.Fatalf("call 3 against the background server: %q %s", res.Stdout, res.Stderr)
	}
	// Control: a one-shot run does not keep /tmp nor the server.
	l := s.l
	one, err := l.Exec(context.Background(), []string{"/bin/sh", "-c", "cat /tmp/note"}, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if one.Stdout == "kept\n" {
		t.Fatal("a one-shot run saw the session's /tmp")
	}
}

func TestSessionStdinDrivesShellRead(t *testing.T) {
	_, s := newSession(t)
	stdinDrivesShellRead(t, s)
}

func TestSessionStdinDrivesPythonREPL(t *testing.T) {
	_, s := newSession(t)
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	ctx := context.Background()
	p, err := s.Start(ctx, Cmd{Argv: []string{"python3", "-i", "-q"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Write([]byte("x = 6*7\nprint('answer', x)\n"))
	waitOutput(t, p.Stdout, "answer 42")
	p.Write([]byte("y = x + 1\nprint('next', y)\n"))
	waitOutput(t, p.Stdout, "next 43")
	p.CloseStdin()
	res, _ := p.Wait(ctx)
	if res.Kind != KindSuccess {
		t.Fatalf("%s %s", res.Kind, res.Stderr)
	}
}

func TestSessionPTYSeesResize(t *testing.T) {
	_, s := newSession(t)
	ctx := context.Background()
	p, err := s.Start(ctx, Cmd{Argv: []string{"/bin/sh", "-c",
		`trap 'echo "size $(stty size)"' WINCH; echo "size $(stty size)"; echo ready; while :; do sleep 0.05; done`},
		Terminal: &WindowSize{Rows: 30, Cols: 100}})
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, p.Stdout, "size 30 100")
	waitOutput(t, p.Stdout, "ready")
	if err := p.Resize(WindowSize{Rows: 50, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, p.Stdout, "size 50 132")
	p.Signal(syscall.SIGKILL)
	res, _ := p.Wait(ctx)
	if res.Signal != "SIGKILL" {
		t.Fatalf("after SIGKILL: %s signal %q", res.Kind, res.Signal)
	}
}

// A call whose request resolves to another policy never runs in the session.
func TestSessionRefusesOtherPolicies(t *testing.T) {
	_, s := newSession(t)
	ctx := context.Background()
	ro := policy.ReadOnly
	narrow := policy.Request{Mode: &ro}
	_, err := s.Start(ctx, Cmd{Argv: []string{"true"}, Request: &narrow})
	if !errors.Is(err, ErrSessionPolicy) {
		t.Fatalf("narrowed request: %v", err)
	}
	wide := policy.Request{Approval: policy.Approve(policy.Grant{Scope: policy.SingleCall, Network: &policy.Network{Mode: policy.NetAllowAll}})}
	_, err = s.Start(ctx, Cmd{Argv: []string{"true"}, Request: &wide})
	if !errors.Is(err, ErrSessionPolicy) {
		t.Fatalf("widened request: %v", err)
	}
	if wide.Approval.Spent() {
		t.Fatal("a refused call spent its single-call approval: its one-shot run could not use it")
	}
	same := policy.Request{}
	res := runIn(t, s, Cmd{Argv: []string{"true"}, Request: &same})
	if res.Kind != KindSuccess {
		t.Fatalf("same policy: %s", res.Kind)
	}
	if len(s.Processes()) != 1 {
		t.Fatalf("refused calls were recorded: %d processes", len(s.Processes()))
	}
}

func TestSessionRingKeepsRecentOutput(t *testing.T) {
	_, s := newSession(t, SessionOptions{OutputKept: 1000})
	res := runIn(t, s, sh("i=0; while [ $i -lt 500 ]; do echo line$i; i=$((i+1)); done"))
	if !strings.HasSuffix(res.Stdout, "line499\n") || len(res.Stdout) > 1000 {
		t.Fatalf("kept %d bytes ending %q", len(res.Stdout), res.Stdout[max(0, len(res.Stdout)-20):])
	}
	if res.Truncated == nil || res.Truncated.Stdout <= 1000 {
		t.Fatalf("dropped output not reported: %+v", res.Truncated)
	}
}

func TestSessionTimeout(t *testing.T) {
	_, s := newSession(t)
	res := runIn(t, s, Cmd{Argv: []string{"sleep", "30"}, Timeout: 200 * time.Millisecond})
	if res.Kind != KindTimedOut {
		t.Fatalf("%s", res.Kind)
	}
}

func TestSessionProcessLimit(t *testing.T) {
	_, s := newSession(t, SessionOptions{MaxProcesses: 2})
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if _, err := s.Start(ctx, Cmd{Argv: []string{"sleep", "30"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Start(ctx, Cmd{Argv: []string{"true"}}); !errors.Is(err, ErrSessionFull) {
		t.Fatalf("third: %v", err)
	}
}

func waitOutput(t *testing.T, r *Ring, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if kept, _ := r.Snapshot(); bytes.Contains(kept, []byte(want)) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	kept, _ := r.Snapshot()
	t.Fatalf("no %q in %q", want, kept)
}

func TestWithEnv(t *testing.T) {
	base := []string{"A=1", "B=2", "PATH=/bin"}
	if got := withEnv(base, nil); strings.Join(got, " ") != "A=1 B=2 PATH=/bin" {
		t.Fatal(got)
	}
	got := withEnv(base, map[string]string{"B": "3", "C": "4"})
	if strings.Join(got, " ") != "A=1 B=3 C=4 PATH=/bin" {
		t.Fatal(got)
	}
	if strings.Join(base, " ") != "A=1 B=2 PATH=/bin" {
		t.Fatal("base changed")
	}
}

// A command cannot end its session's init: every signal it sends to pid 1
// is dropped (as pid 1 of the namespace, or caught and ignored).
func TestSessionInitSurvivesSignalsFromInside(t *testing.T) {
	_, s := newSession(t)
	// kill -0 succeeding shows the signals do reach pid 1 (not refused
	// with EPERM): only the init's own dispositions keep it alive. (Before
	// the session init dropped SIGTERM, SIGINT and SIGHUP, this test saw
	// the session end.)
	res := runIn(t, s, sh(`kill -0 1 || exit 9; for sig in $(seq 1 31); do kill -$sig 1 2>/dev/null; done; kill -KILL 1; kill -STOP 1; echo sent`))
	if res.Stdout != "sent\n" {
		t.Fatalf("%+v", res)
	}
	time.Sleep(100 * time.Millisecond)
	if res := runIn(t, s, Cmd{Argv: []string{"true"}}); res.Kind != KindSuccess {
		t.Fatalf("the session no longer serves: %s %s", res.Kind, s.Err())
	}
}

// A process past the session's memory limit ends the session (one cgroup
// for the session), and its result says which limit.
func TestSessionMemoryBreach(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	d := policy.AgentDefaults()
	d.Limits = policy.Limits{MemoryBytes: 64 << 20}
	s := openSession(t, newLocal(t, Config{Backend: "linux", Defaults: d}), false)
	res := runIn(t, s, Cmd{Argv: []string{"python3", "-c", "b = bytearray(512 << 20); import time; time.sleep(5)"}})
	if res.Kind != KindOverBudget || res.Breach != "memory" {
		t.Fatalf("%s breach %q: %s", res.Kind, res.Breach, res.Narration)
	}
	<-s.Done()
	if !strings.Contains(s.Err().Error(), "memory") {
		t.Fatalf("session ended because %v", s.Err())
	}
}

// Under the domains network the control socket follows the proxy's
// handoff descriptor; the session starts and its proxy refuses a host no
// rule names.
func TestSessionDomainsNetwork(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	d := policy.AgentDefaults()
	d.Network = policy.Network{Mode: policy.NetDomains, Domains: []string{"example.invalid"}}
	s := openSession(t, newLocal(t, Config{Backend: "linux", Defaults: d}), true)
	if res := runIn(t, s, Cmd{Argv: []string{"true"}}); res.Kind != KindSuccess {
		t.Fatalf("%s %s", res.Kind, res.Stderr)
	}
	res := runIn(t, s, Cmd{Argv: []string{"python3", "-c", `
import urllib.request
try:
    urllib.request.urlopen("http://not-allowed.example.com/", timeout=5)
    print("reached")
except Exception as e:
    print("refused", e)
`}})
	if !strings.HasPrefix(res.Stdout, "refused") {
		t.Fatalf("%q %s", res.Stdout, res.Stderr)
	}
}

// The same sessions for a caller that is not root.
func TestSessionAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestSessionRunsAndClassifies|TestSessionTmpAndBackgroundServerPersist|TestSessionStdinDrivesShellRead|TestSessionPTYSeesResize|TestSessionPTYIsTheViewsOwn|TestSessionInitSurvivesSignalsFromInside|TestSessionRefusesOtherPolicies)$")
}

// A backend without sessions never starts one (nor anything else). landlock
// has one-shot sessions (session_oneshot_linux_test.go).
func TestSessionNeedsTheLinuxBackend(t *testing.T) {
	for _, b := range []string{"bwrap"} {
		t.Run(b, func(t *testing.T) {
			l, err := New(Config{Root: hostDir(t), Backend: b})
			if err != nil {
				t.Skipf("backend %s not available here: %v", b, err)
			}
			defer l.Close()
			s, err := l.Session(context.Background(), policy.Request{})
			if err == nil {
				s.Close()
				t.Fatal("a session on a backend without sessions")
			}
			if !errors.Is(err, ErrSessionUnsupported) {
				t.Fatalf("refused, but not as unsupported: %v", err)
			}
		})
	}
	d := policy.AgentDefaults()
	d.Mode = policy.DangerFullAccess
	l := newLocal(t, Config{Backend: "linux", Defaults: d})
	if _, err := l.Session(context.Background(), policy.Request{}); !errors.Is(err, ErrSessionUnsupported) {
		t.Fatalf("danger-full-access: %v", err)
	}
}

// A terminal process's terminal is the view's own: opened by the init in
// the sandbox's private devpts, so ttyname names it (/dev/pts/N inside)
// and the host's terminals are neither used nor visible.
func TestSessionPTYIsTheViewsOwn(t *testing.T) {
	_, s := newSession(t)
	res := runIn(t, s, Cmd{Argv: []string{"/bin/sh", "-c", "stty size && tty && ls /dev/pts"},
		Terminal: &WindowSize{Rows: 24, Cols: 80}})
	lines := strings.Fields(strings.ReplaceAll(res.Stdout, "\r", ""))
	if res.Kind != KindSuccess || len(lines) < 4 || lines[0] != "24" || lines[1] != "80" ||
		!strings.HasPrefix(lines[2], "/dev/pts/") {
		t.Fatalf("%s: %q %q", res.Kind, res.Stdout, res.Stderr)
	}
	// Only the sandbox's own terminals (and its multiplexer) are listed.
	for _, n := range lines[3:] {
		if n != "ptmx" && "/dev/pts/"+n != lines[2] {
			t.Errorf("/dev/pts inside shows %q besides the process's own %s", n, lines[2])
		}
	}
	// Control: without a terminal, tty says so (the check can fail).
	res = runIn(t, s, Cmd{Argv: []string{"/bin/sh", "-c", "tty"}})
	if res.Kind == KindSuccess || !strings.Contains(res.Stdout, "not a tty") {
		t.Fatalf("tty without a terminal: %s %q", res.Kind, res.Stdout)
	}
}
