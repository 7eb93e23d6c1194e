package run

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestCtty(t *testing.T) {
	for _, tc := range []struct {
		tty  [3]bool
		fd   int
		want bool
	}{
		{[3]bool{}, 0, false},
		{[3]bool{true, true, true}, 0, true},
		{[3]bool{false, true, true}, 1, true},
		{[3]bool{false, false, true}, 2, true},
		{[3]bool{true, false, false}, 0, true},
	} {
		fd, ok := ctty(tc.tty)
		if ok != tc.want || (ok && fd != tc.fd) {
			t.Errorf("%v: %d %v, want %d %v", tc.tty, fd, ok, tc.fd, tc.want)
		}
	}
	if (&Terminal{Stdout: true, Stderr: true}).outputStream() != 1 || (&Terminal{Stdin: true, Stderr: true}).outputStream() != 2 {
		t.Error("terminal output goes to the wrong stream")
	}
}

func TestMakeRaw(t *testing.T) {
	var cooked unix.Termios
	cooked.Iflag = unix.ICRNL | unix.IXON | unix.BRKINT
	cooked.Oflag = unix.OPOST | unix.ONLCR
	cooked.Lflag = unix.ECHO | unix.ICANON | unix.ISIG | unix.IEXTEN
	cooked.Cflag = unix.PARENB | unix.CS7
	raw := makeRaw(cooked)
	if raw.Lflag&(unix.ECHO|unix.ICANON|unix.ISIG|unix.IEXTEN) != 0 {
		t.Errorf("lflag %#x: echo, line editing or key signals still on", raw.Lflag)
	}
	if raw.Iflag&(unix.ICRNL|unix.IXON|unix.BRKINT) != 0 || raw.Oflag&unix.OPOST != 0 {
		t.Errorf("iflag %#x oflag %#x: translation still on", raw.Iflag, raw.Oflag)
	}
	if raw.Cflag&unix.CSIZE != unix.CS8 || raw.Cflag&unix.PARENB != 0 {
		t.Errorf("cflag %#x: want 8 bits, no parity", raw.Cflag)
	}
	if raw.Cc[unix.VMIN] != 1 || raw.Cc[unix.VTIME] != 0 {
		t.Errorf("vmin %d vtime %d", raw.Cc[unix.VMIN], raw.Cc[unix.VTIME])
	}
	if makeRaw(raw) != raw {
		t.Error("raw mode is not a fixed point")
	}
}
