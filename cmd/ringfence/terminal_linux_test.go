package main

import (
	"bytes"
	"errors"
	"fmt"

	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// userPTY is the person's terminal: ringfence is started on its slave as
// the leader of a session whose controlling terminal it is, as a shell
// starts it; the test types into, and reads the screen from, its master.
type userPTY struct {
	master, slave *os.File
	mu            sync.Mutex
	screen        bytes.Buffer
}

func newUserPTY(t *testing.T, rows, cols uint16) *userPTY {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	u := &userPTY{master: m, slave: s}
	u.resize(t, rows, cols)
	go func() {
		buf := make([]byte, 4096)
		for {
			k, err := m.Read(buf)
			u.mu.Lock()
			u.screen.Write(buf[:k])
			u.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { m.Close(); s.Close() })
	return u
}

func (u *userPTY) resize(t *testing.T, rows, cols uint16) {
	if err := unix.IoctlSetWinsize(int(u.slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols}); err != nil {
		t.Fatal(err)
	}
}

func (u *userPTY) text() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.screen.String()
}

func (u *userPTY) waitFor(t *testing.T, what string) {
	t.Helper()
	for range 600 {
		if strings.Contains(u.text(), what) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never saw %q on the screen: %q", what, u.text())
}

func (u *userPTY) termios(t *testing.T) unix.Termios {
	tio, err := unix.IoctlGetTermios(int(u.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return *tio
}

// startOn starts ringfence on the user's terminal.
func (u *userPTY) startOn(t *testing.T, dir string, args ...string) *exec.Cmd {
	c := cliProcess(t, dir, args...)
	c.Stdin, c.Stdout, c.Stderr = u.slave, u.slave, u.slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

func exitCode(t *testing.T, c *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		_ = c.Process.Kill()
		t.Fatal("ringfence did not end")
	}
	return -1
}

// On a terminal, the command gets a new one: a terminal on every stream,
// named inside the sandbox, the user's size, a resize seen, Ctrl-C to its
// foreground group; the user's terminal is raw meanwhile and restored.
func TestRunOnTerminal(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			ws := workspace(t)
			u := newUserPTY(t, 33, 101)
			before := u.termios(t)
			// noflsh: on Ctrl-C the terminal's line discipline signals the
			// foreground group and only then discards the output not yet
			// read from the master. A trap quick enough to write before that
			// discard (a preempted kworker on a loaded host) would lose
			// "got-int" to the terminal's own semantics, not to ringfence.
			script := `stty noflsh; tty; stty size; test -t 0 && test -t 1 && test -t 2 && echo all-streams-tty
trap 'stty size; echo resized' WINCH
trap 'echo got-int; exit 5' INT
echo ready; while :; do sleep 0.05; done`
			c := u.startOn(t, ws, "run", "--backend", b, "--", "sh", "-c", script)
			u.waitFor(t, "ready")
			if tio := u.termios(t); tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
				t.Errorf("the user's terminal is not raw while the command runs: lflag %#x", tio.Lflag)
			}
			u.resize(t, 40, 120) // the kernel sends SIGWINCH to ringfence
			u.waitFor(t, "resized")
			if _, err := u.master.Write([]byte{3}); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, c); code != 5 {
				t.Fatalf("exit %d, want the command's own 5 after its INT trap; screen %q", code, u.text())
			}
			u.waitFor(t, "got-int") // the screen is read asynchronously
			screen := u.text()
			name := regexp.MustCompile(`(?m)^(/dev/\S+)\r?$`).FindStringSubmatch(screen)
			if name == nil || name[1] == u.slave.Name() {
				t.Errorf("tty named no new terminal (user's is %s): %q", u.slave.Name(), screen)
			}
			for _, want := range []string{"33 101", "all-streams-tty", "40 120", "got-int"} {
				if !strings.Contains(screen, want) {
					t.Errorf("screen lacks %q: %q", want, screen)
				}
			}
			if after := u.termios(t); after != before {
				t.Errorf("the user's terminal was not restored:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// The user's terminal survives a SIGTERM of ringfence: restored, and 143.
func TestTerminalRestoredOnSignal(t *testing.T) {
	needBackend(t, "linux")
	ws := workspace(t)
	u := newUserPTY(t, 24, 80)
	before := u.termios(t)
	c := u.startOn(t, ws, "run", "--backend", "linux", "--", "sh", "-c", "echo ready; sleep 30")
	u.waitFor(t, "ready")
	_ = c.Process.Signal(syscall.SIGTERM)
	if code := exitCode(t, c); code != 143 {
		t.Fatalf("exit %d, want 143", code)
	}
	if after := u.termios(t); after != before {
		t.Errorf("the user's terminal was not restored after SIGTERM")
	}
}

// --json never opens a terminal: its stdout is the result.
func TestJSONNeverATerminal(t *testing.T) {
	needBackend(t, "linux")
	ws := workspace(t)
	u := newUserPTY(t, 24, 80)
	c := u.startOn(t, ws, "run", "--json", "--backend", "linux", "--", "sh", "-c", "test -t 1 && echo tty || echo notty")
	exitCode(t, c)
	u.waitFor(t, `"kind"`)
	if !strings.Contains(u.text(), `notty`) {
		t.Fatalf("--json ran the command on a terminal: %q", u.text())
	}
}

// Ctrl-Z reaches the command's foreground group as SIGTSTP, on every
// backend (the runner made the terminal the command's own).
func TestRunOnTerminalCtrlZ(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			u := newUserPTY(t, 24, 80)
			c := u.startOn(t, workspace(t), "run", "--backend", b, "--", "sh", "-c",
				`trap 'echo got-tstp; exit 6' TSTP; sleep 30 & echo ready; wait`)
			u.waitFor(t, "ready")
			if _, err := u.master.Write([]byte{26}); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, c); code != 6 {
				t.Fatalf("exit %d, want 6 from the command's TSTP trap; screen %q", code, u.text())
			}
		})
	}
}

// The command never holds the user's terminal, on any backend and not even
// unconfined: its standard descriptors and its controlling terminal are
// the new terminal, so TIOCSTI (refused by seccomp when confined anyway)
// or any other ioctl can only ever reach that one. The control is a
// process started on the user's terminal directly, which does hold it.
func TestCommandNeverHoldsUserTerminal(t *testing.T) {
	const probe = `for f in 0 1 2; do stat -L -c 'fd %t:%T' /proc/self/fd/$f; done; echo "ctty $(cut -d' ' -f7 /proc/$$/stat)"; echo done`
	var st unix.Stat_t
	u := newUserPTY(t, 24, 80)
	if err := unix.Fstat(int(u.slave.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	userDev := fmt.Sprintf("fd %x:%x", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	userCtty := fmt.Sprintf("ctty %d", unix.Major(st.Rdev)<<8|unix.Minor(st.Rdev)&0xff|(unix.Minor(st.Rdev)&^0xff)<<12)

	ctl := exec.Command("/bin/sh", "-c", probe)
	ctl.Stdin, ctl.Stdout, ctl.Stderr = u.slave, u.slave, u.slave
	ctl.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := ctl.Run(); err != nil {
		t.Fatal(err)
	}
	u.waitFor(t, "done")
	if !strings.Contains(u.text(), userDev) || !strings.Contains(u.text(), userCtty) {
		t.Fatalf("control: a process on the user's terminal does not show it (%s, %s): %q", userDev, userCtty, u.text())
	}

	for _, m := range modes {
		t.Run(m, func(t *testing.T) {
			u := newUserPTY(t, 24, 80)
			var st unix.Stat_t
			if err := unix.Fstat(int(u.slave.Fd()), &st); err != nil {
				t.Fatal(err)
			}
			userDev := fmt.Sprintf("fd %x:%x", unix.Major(st.Rdev), unix.Minor(st.Rdev))
			userCtty := fmt.Sprintf("ctty %d\r", unix.Major(st.Rdev)<<8|unix.Minor(st.Rdev)&0xff)
			c := u.startOn(t, workspace(t), append(append([]string{"run"}, modeArgs(t, m)...), "--", "sh", "-c", probe)...)
			if code := exitCode(t, c); code != 0 {
				t.Fatalf("exit %d: %q", code, u.text())
			}
			u.waitFor(t, "done")
			screen := u.text()
			if strings.Count(screen, "fd 88:") != 3 || strings.Contains(screen, userDev) || strings.Contains(screen, userCtty) ||
				strings.Contains(screen, "ctty 0\r") {
				t.Fatalf("the command held something other than a new terminal (user's is %s): %q", userDev, screen)
			}
		})
	}
}
