package sandbox

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// The one set-up of the session tests (session_linux_test.go,
// session_oneshot_linux_test.go, session_teardown_linux_test.go): the
// defaults they run under and a session closed at the test's end.

// loopbackDefaults are the agent defaults with loopback networking.
func loopbackDefaults() policy.Defaults {
	d := policy.AgentDefaults()
	d.Network = policy.Network{Mode: policy.NetLoopback}
	return d
}

// openSession starts a session of l under the defaults, closed at the
// test's end. A host that cannot give one skips with the reason
// (testenv.Need: a failure under RINGFENCE_REQUIRE_ALL) unless required,
// when it fails the test.
func openSession(t *testing.T, l *Local, required bool, o ...SessionOptions) *Session {
	t.Helper()
	s, err := l.Session(context.Background(), policy.Request{}, o...)
	switch {
	case err != nil && required:
		t.Fatalf("a %s session: %v", l.Backend(), err)
	case err != nil:
		testenv.Need(t, "a "+l.Backend()+"-backend session", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// stdinDrivesShellRead: a process of s reads what is written to it, line
// by line, while it runs, and CloseStdin ends a reader at EOF — the same
// on both session kinds.
func stdinDrivesShellRead(t *testing.T, s *Session) {
	t.Helper()
	ctx := context.Background()
	p, err := s.Start(ctx, sh(`read a; echo "got $a"; read b; echo "then $b"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, p.Stdout, "got one")
	if !p.Running() {
		t.Fatal("ended before its second read")
	}
	p.Write([]byte("two\n"))
	res, _ := p.Wait(ctx)
	if res.Stdout != "got one\nthen two\n" {
		t.Fatalf("got %q", res.Stdout)
	}
	p, _ = s.Start(ctx, sh("cat; echo done"))
	p.Write([]byte("x\n"))
	p.CloseStdin()
	res, _ = p.Wait(ctx)
	if res.Stdout != "x\ndone\n" {
		t.Fatalf("cat: %q", res.Stdout)
	}
}

// startSupervisor reruns the test binary as a session supervisor to be
// killed: test is the test whose child branch runs it, env what the child
// reads. It returns once the child says "ready <its temp dir>"; a child
// that says "skip: …" skips (testenv.Need), any other answer fails. The
// temp dir, which a killed supervisor cannot remove, is removed at the
// test's end (only one of the private temp dirs' own names).
func startSupervisor(t *testing.T, test string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	line = strings.TrimSpace(line)
	tmp, ok := strings.CutPrefix(line, "ready ")
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		if strings.HasPrefix(line, "skip") {
			testenv.Need(t, "a session", errors.New(line))
		}
		t.Fatalf("child: %q", line)
	}
	for _, dir := range []string{"/tmp", os.TempDir()} {
		if strings.HasPrefix(tmp, dir+"/ringfence-tmp-") {
			t.Cleanup(func() { os.RemoveAll(tmp) })
			break
		}
	}
	return cmd, tmp
}
