//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// newLandlockSession is a session on the landlock backend (one-shot runs)
// under the agent defaults with loopback networking, closed at the end.
func newLandlockSession(t *testing.T, o ...SessionOptions) (*Local, *Session) {
	t.Helper()
	l := newLocal(t, Config{Backend: "landlock", Defaults: loopbackDefaults()})
	if b := l.Backend(); b != "landlock" {
		testenv.Need(t, "the landlock backend", errors.New("selected "+b))
	}
	return l, openSession(t, l, true, o...)
}

func TestOneShotSessionRunsAndClassifies(t *testing.T) {
	_, s := newLandlockSession(t)
	if s.Shared() || len(s.Reasons()) == 0 {
		t.Fatalf("a landlock session must say it is partial: shared %v reasons %q", s.Shared(), s.Reasons())
	}
	res := runIn(t, s, sh("echo out; echo err >&2; exit 3"))
	if res.Kind != KindCommandFailure || res.ExitCode == nil || *res.ExitCode != 3 ||
		res.Stdout != "out\n" || res.Stderr != "err\n" {
		t.Fatalf("got %+v", res)
	}
	if res.Backend != "landlock" || res.Narration == "" {
		t.Fatalf("backend %q narration %q", res.Backend, res.Narration)
	}
	if !strings.Contains(strings.Join(res.Enforcement.Reasons, "\n"), "session partial") {
		t.Fatalf("the result does not say the session is partial: %q", res.Enforcement.Reasons)
	}
	res = runIn(t, s, Cmd{Argv: []string{"no-such-program-here"}})
	if res.Kind == KindSuccess {
		t.Fatalf("missing program: %s (%s)", res.Kind, res.Narration)
	}
}

func TestOneShotSessionStdinDrivesShellRead(t *testing.T) {
	_, s := newLandlockSession(t)
	stdinDrivesShellRead(t, s)
}

func TestOneShotSessionPTYSeesResize(t *testing.T) {
	_, s := newLandlockSession(t)
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
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, _ := p.Wait(ctx)
	if res.Signal != "SIGKILL" {
		t.Fatalf("after SIGKILL: %s signal %q", res.Kind, res.Signal)
	}
	// Control: without a terminal, tty says so (the check can fail).
	res = runIn(t, s, Cmd{Argv: []string{"/bin/sh", "-c", "tty"}})
	if res.Kind == KindSuccess || !strings.Contains(res.Stdout, "not a tty") {
		t.Fatalf("tty without a terminal: %s %q", res.Kind, res.Stdout)
	}
}

// Signal reaches the command (its trap runs), never the runner above it.
func TestOneShotSessionSignal(t *testing.T) {
	_, s := newLandlockSession(t)
	ctx := context.Background()
	p, err := s.Start(ctx, sh(`trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done`))
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, p.Stdout, "ready")
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res, _ := p.Wait(ctx)
	if res.ExitCode == nil || *res.ExitCode != 7 || !strings.Contains(res.Stdout, "got-term") {
		t.Fatalf("after SIGTERM: %s exit %v %q", res.Kind, res.ExitCode, res.Stdout)
	}
	if err := p.Signal(syscall.SIGTERM); err == nil {
		t.Fatal("a signal to an ended process was accepted")
	}
}

// A process started in the background (its own Start, no timeout) keeps
// running across later Starts, which reach it through files in the shared
// TMPDIR. Sockets do not join them: landlock refuses inet sockets under
// the loopback mode (no namespace keeps a loopback apart), and each run's
// supervisor refuses a Unix socket whose listener is not of its own tree.
func TestOneShotSessionBackgroundSurvivesAcrossStarts(t *testing.T) {
	_, s := newLandlockSession(t)
	ctx := context.Background()
	srv, err := s.Start(ctx, Cmd{Argv: []string{"/bin/sh", "-c", `cd "$TMPDIR" || exit 9
while :; do
  if [ -f req ]; then rm req; echo "served by $$" > resp.tmp; mv resp.tmp resp; fi
  sleep 0.02
done`}, Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	client := sh(`cd "$TMPDIR" && rm -f resp && : > req && for i in $(seq 200); do [ -f resp ] && exec cat resp; sleep 0.02; done; exit 3`)
	res := runIn(t, s, client)
	if res.Kind != KindSuccess || !strings.HasPrefix(res.Stdout, "served by ") {
		t.Fatalf("the background server was not reached: %s %q %q", res.Kind, res.Stdout, res.Stderr)
	}
	if res2 := runIn(t, s, client); res2.Stdout != res.Stdout {
		t.Fatalf("a second Start reached another server: %q vs %q", res2.Stdout, res.Stdout)
	}
	if !srv.Running() {
		t.Fatal("the server ended")
	}
	if err := srv.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if sr, _ := srv.Wait(ctx); sr.Signal != "SIGKILL" {
		t.Fatalf("server: %s %q", sr.Kind, sr.Signal)
	}
	// Control: with the server gone the client fails (the check can fail).
	if res = runIn(t, s, client); res.Kind == KindSuccess {
		t.Fatalf("the client succeeded with no server: %q", res.Stdout)
	}
}

// A write outside the policy's writable roots is refused in a session's
// process; control: the same write from the host (unconfined) works.
func TestOneShotSessionEscapeRefused(t *testing.T) {
	_, s := newLandlockSession(t)
	outside := filepath.Join(hostDir(t), "escaped")
	res := runIn(t, s, sh("echo pwned > "+outside))
	if _, err := os.Stat(outside); err == nil {
		t.Fatalf("a session process wrote outside the workspace (%s)", res.Kind)
	}
	if res.Kind == KindSuccess {
		t.Fatalf("the refused write reported success")
	}
	ctl := exec.Command("/bin/sh", "-c", "echo pwned > "+outside)
	if err := ctl.Run(); err != nil {
		t.Fatalf("control: the unconfined write failed: %v", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Fatalf("control: %v", err)
	}
}

// markedSleepers are host processes whose command line has marker.
func markedSleepers(marker string) []int {
	return procsWith(func(_ int, cmdline string) bool { return strings.Contains(cmdline, marker) })
}

func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if len(markedSleepers(marker)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("processes survived: %v", markedSleepers(marker))
}

// startMarked starts a process that runs (and starts a setsid'd
// grandchild) until stopped, and checks from the host side that both run.
func startMarked(t *testing.T, s *Session) string {
	t.Helper()
	marker := "9" + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	_, err := s.Start(context.Background(), Cmd{Argv: []string{"/bin/sh", "-c",
		"setsid sleep 1000" + marker + " & sleep 1000" + marker}, Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(markedSleepers(marker)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(markedSleepers(marker)); n < 2 {
		t.Fatalf("control: %d marked processes seen from the host, want 2", n)
	}
	return marker
}

func TestOneShotSessionCloseLeavesNothing(t *testing.T) {
	_, s := newLandlockSession(t)
	marker := startMarked(t, s)
	procs := s.Processes()
	s.Close()
	if len(markedSleepers(marker)) != 0 {
		t.Fatalf("Close returned with processes left: %v", markedSleepers(marker))
	}
	res, _ := procs[0].Wait(context.Background())
	if res == nil || res.Kind == KindSuccess {
		t.Fatalf("a process ended by Close: %+v", res)
	}
	if _, err := s.Start(context.Background(), sh("true")); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("start after close: %v", err)
	}
}

func TestOneShotSessionIdleTimeout(t *testing.T) {
	_, s := newLandlockSession(t, SessionOptions{IdleTimeout: 300 * time.Millisecond})
	res := runIn(t, s, sh("echo hi"))
	if res.Stdout != "hi\n" {
		t.Fatalf("%q", res.Stdout)
	}
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the idle session did not end")
	}
	if s.Err() == nil || !strings.Contains(s.Err().Error(), "idle") {
		t.Fatalf("why: %v", s.Err())
	}
}

// The supervisor is SIGKILLed (no cleanup runs): every process of every
// run ends with its init (parent-death signal, subreaper). Control: they
// are seen while it lives.
func TestOneShotSessionSupervisorKilled(t *testing.T) {
	if os.Getenv("RF_ONESHOT_CHILD") != "" {
		oneShotChild(t)
		return
	}
	marker := "7" + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	cmd, _ := startSupervisor(t, "TestOneShotSessionSupervisorKilled", "RF_ONESHOT_CHILD=1", "RF_ONESHOT_MARK="+marker)
	deadline := time.Now().Add(5 * time.Second)
	for len(markedSleepers(marker)) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(markedSleepers(marker)); n < 2 {
		t.Fatalf("control: %d marked processes while the supervisor lives, want 2", n)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	waitGone(t, marker)
}

// oneShotChild is the supervisor TestOneShotSessionSupervisorKilled kills.
func oneShotChild(t *testing.T) {
	d := policy.AgentDefaults()
	l, err := New(Config{Root: t.TempDir(), Backend: "landlock", Defaults: d})
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		return
	}
	s, err := l.Session(context.Background(), policy.Request{})
	if err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		return
	}
	marker := os.Getenv("RF_ONESHOT_MARK")
	if _, err := s.Start(context.Background(), Cmd{Argv: []string{"/bin/sh", "-c",
		"setsid sleep 1000" + marker + " & sleep 1000" + marker}, Timeout: -1}); err != nil {
		os.Stdout.WriteString("error: " + err.Error() + "\n")
		return
	}
	os.Stdout.WriteString("ready " + l.tempDir + "\n")
	time.Sleep(time.Minute)
}

func TestOneShotSessionAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestOneShotSessionRunsAndClassifies|TestOneShotSessionStdinDrivesShellRead|TestOneShotSessionPTYSeesResize|TestOneShotSessionSignal|TestOneShotSessionBackgroundSurvivesAcrossStarts|TestOneShotSessionEscapeRefused|TestOneShotSessionCloseLeavesNothing|TestOneShotSessionTerminalWithGivenStdin)$")
}

// A terminal process fed from Cmd.Stdin reads it through the terminal;
// CloseStdin then has nothing to close (and must not fail).
func TestOneShotSessionTerminalWithGivenStdin(t *testing.T) {
	_, s := newLandlockSession(t)
	p, err := s.Start(context.Background(), Cmd{Argv: []string{"/bin/sh", "-c", `read a; echo "got $a"; tty`},
		Stdin: strings.NewReader("hello\n"), Terminal: &WindowSize{Rows: 24, Cols: 80}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("x")); err == nil {
		t.Fatal("Write accepted with Cmd.Stdin given")
	}
	res, _ := p.Wait(context.Background())
	if out := strings.ReplaceAll(res.Stdout, "\r", ""); !strings.Contains(out, "got hello\n/dev/pts/") {
		t.Fatalf("%s %q", res.Kind, res.Stdout)
	}
}
