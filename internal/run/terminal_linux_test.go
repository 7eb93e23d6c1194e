//go:build linux

package run

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/testenv"
)

// userTerminal is a pseudo-terminal standing in for the person's own: the
// test types into master and the code under test holds slave, as
// ringfence holds the terminal it was started on.
type userTerminal struct{ master, slave *os.File }

func newUserTerminal(t *testing.T, rows, cols uint16) *userTerminal {
	t.Helper()
	m, s, err := openPTY()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	u := &userTerminal{m, s}
	u.resize(t, rows, cols)
	return u
}

func (u *userTerminal) resize(t *testing.T, rows, cols uint16) {
	if err := unix.IoctlSetWinsize(int(u.slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatal(err)
	}
}

func (u *userTerminal) termios(t *testing.T) unix.Termios {
	tio, err := unix.IoctlGetTermios(int(u.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return *tio
}

func (u *userTerminal) ptsNumber(t *testing.T) int {
	n, err := unix.IoctlGetInt(int(u.master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// syncBuffer is the live output, read while the command runs.
type syncBuffer struct{ testenv.LockedBuffer }

func (s *syncBuffer) waitFor(t *testing.T, what string) {
	t.Helper()
	for range 400 {
		if strings.Contains(s.String(), what) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never saw %q; output %q", what, s.String())
}

// onTerminal runs script on a new terminal relayed to u, in the background.
func onTerminal(t *testing.T, u *userTerminal, reaper bool, script string) (*syncBuffer, <-chan *Result) {
	t.Helper()
	out := &syncBuffer{}
	done := make(chan *Result, 1)
	go func() {
		r, err := Run(context.Background(), shCmd(script), Options{
			Stdin: u.slave, Stdout: out, Stderr: out, Reaper: reaper, Timeout: 20 * time.Second,
			Terminal: &Terminal{Stdin: true, Stdout: true, Stderr: true, Input: u.slave, Size: u.slave},
		})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	return out, done
}

func bothWays(t *testing.T, f func(t *testing.T, reaper bool)) {
	t.Run("plain", func(t *testing.T) { f(t, false) })
	t.Run("reaper", func(t *testing.T) { f(t, true) })
}

// The command has a terminal — a new one, not the user's — of the user's
// size, in cooked mode while the user's is raw, and the user's is restored.
func TestTerminalIsNewAndSized(t *testing.T) {
	bothWays(t, func(t *testing.T, reaper bool) {
		u := newUserTerminal(t, 33, 101)
		before := u.termios(t)
		out, done := onTerminal(t, u, reaper, `tty; stty size; test -t 0 && test -t 1 && test -t 2 && echo all-tty; echo ready; read x; echo "got:$x"`)
		out.waitFor(t, "ready")
		during := u.termios(t)
		if during.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
			t.Errorf("the user's terminal is not raw while the command runs: lflag %#x", during.Lflag)
		}
		if _, err := u.master.Write([]byte("hello\r")); err != nil {
			t.Fatal(err)
		}
		r := <-done
		text := string(r.Stdout)
		m := regexp.MustCompile(`/dev/pts/(\d+)`).FindStringSubmatch(text)
		if m == nil || m[1] == strconv.Itoa(u.ptsNumber(t)) {
			t.Fatalf("tty printed no new terminal: %q", text)
		}
		for _, want := range []string{"33 101", "all-tty", "got:hello"} {
			if !strings.Contains(text, want) {
				t.Errorf("output %q lacks %q", text, want)
			}
		}
		if r.ExitCode == nil || *r.ExitCode != 0 {
			t.Errorf("exit %v", r.ExitCode)
		}
		if after := u.termios(t); after != before {
			t.Errorf("the user's terminal was not restored: before %+v after %+v", before, after)
		}
	})
}

// A resize of the user's terminal (SIGWINCH to ringfence) reaches the
// command as its own terminal's new size and SIGWINCH.
func TestTerminalResize(t *testing.T) {
	bothWays(t, func(t *testing.T, reaper bool) {
		u := newUserTerminal(t, 24, 80)
		out, done := onTerminal(t, u, reaper, `trap 'stty size; exit 0' WINCH; echo ready; while :; do sleep 0.05; done`)
		out.waitFor(t, "ready")
		u.resize(t, 40, 120)
		if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
			t.Fatal(err)
		}
		r := <-done
		if !strings.Contains(string(r.Stdout), "40 120") || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("resize not seen: exit %v output %q", r.ExitCode, r.Stdout)
		}
	})
}

// Ctrl-C and Ctrl-Z typed on the user's terminal are SIGINT and SIGTSTP
// to the command's foreground group, not to ringfence. (The shell waits
// with the wait builtin, which a trapped signal interrupts at once; a
// foreground sleep would hold the trap until it ended.)
func TestTerminalJobControlKeys(t *testing.T) {
	for _, key := range []struct {
		name string
		b    byte
		sig  string
		code int
	}{{"ctrl-c", 3, "INT", 5}, {"ctrl-z", 26, "TSTP", 6}} {
		t.Run(key.name, func(t *testing.T) {
			bothWays(t, func(t *testing.T, reaper bool) {
				u := newUserTerminal(t, 24, 80)
				script := "trap 'echo got-" + key.sig + "; exit " + strconv.Itoa(key.code) + "' " + key.sig + "; sleep 30 & echo ready; wait"
				out, done := onTerminal(t, u, reaper, script)
				out.waitFor(t, "ready")
				if _, err := u.master.Write([]byte{key.b}); err != nil {
					t.Fatal(err)
				}
				r := <-done
				if r.ExitCode == nil || *r.ExitCode != key.code || !strings.Contains(string(r.Stdout), "got-"+key.sig) {
					t.Fatalf("%s did not reach the command: exit %v aborted %v output %q", key.name, r.ExitCode, r.Aborted, r.Stdout)
				}
			})
		})
	}
}

// The user's terminal is never handed to a command: given as Stdin it is
// read through a pipe, so the command cannot change its modes. The control
// shows the attack works when a command does hold it.
func TestUserTerminalNeverHandedOver(t *testing.T) {
	const attack = `stty -echo 2>/dev/null; test -t 0 && echo stdin-is-a-terminal; exit 0`
	u := newUserTerminal(t, 24, 80)
	if u.termios(t).Lflag&unix.ECHO == 0 {
		t.Fatal("a fresh terminal has no echo")
	}
	ctl := exec.Command("/bin/sh", "-c", attack)
	ctl.Stdin = u.slave
	if out, err := ctl.Output(); err != nil || !strings.Contains(string(out), "stdin-is-a-terminal") || u.termios(t).Lflag&unix.ECHO != 0 {
		t.Fatalf("control: the attack did not work unconfined (%v, %q)", err, out)
	}
	u = newUserTerminal(t, 24, 80)
	for _, reaper := range []bool{false, true} {
		go func() { time.Sleep(300 * time.Millisecond); u.master.Write([]byte{4}) }()
		r := mustRun(t, shCmd(attack), Options{Stdin: u.slave, Reaper: reaper})
		if strings.Contains(string(r.Stdout), "stdin-is-a-terminal") || u.termios(t).Lflag&unix.ECHO == 0 {
			t.Fatalf("reaper %v: the command held the user's terminal: %q", reaper, r.Stdout)
		}
	}
}
