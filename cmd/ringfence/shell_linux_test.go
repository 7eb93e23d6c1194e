package main

import (
	"os"
	"strings"
	"testing"
)

// ringfence shell gives a person an interactive shell on a new terminal,
// confined as run confines: its writes outside the workspace fail, its
// size is the user's, and exit ends ringfence with the shell's status.
func TestShellIsInteractiveAndConfined(t *testing.T) {
	needBackend(t, "linux")
	ws := workspace(t)
	u := newUserPTY(t, 27, 91)
	before := u.termios(t)
	c := u.startOn(t, ws, "shell", "--backend", "linux", "--", "/bin/sh", "-i")
	if _, err := u.master.Write([]byte("stty size; echo x > /etc/rf-shell-probe || echo refused-$((6*7)); exit 7\n")); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, c); code != 7 {
		t.Fatalf("exit %d, want the shell's 7; screen %q", code, u.text())
	}
	u.waitFor(t, "refused-42")
	if _, err := os.Stat("/etc/rf-shell-probe"); err == nil {
		os.Remove("/etc/rf-shell-probe")
		t.Fatal("the shell wrote to the host's /etc")
	}
	if !strings.Contains(u.text(), "27 91") {
		t.Errorf("the shell's terminal is not the user's size: %q", u.text())
	}
	if after := u.termios(t); after != before {
		t.Errorf("the user's terminal was not restored")
	}
}

// Without a terminal, shell refuses (usage) and starts nothing.
func TestShellNeedsATerminal(t *testing.T) {
	ws := workspace(t)
	c := cliProcess(t, ws, "shell", "--backend", "linux")
	out, _ := c.CombinedOutput()
	if c.ProcessState.ExitCode() != exitUsage || !strings.Contains(string(out), "terminal") {
		t.Fatalf("exit %d: %s", c.ProcessState.ExitCode(), out)
	}
}
