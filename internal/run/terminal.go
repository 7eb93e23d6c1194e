package run

import (
	"os"

	"golang.org/x/sys/unix"
)

// Terminal asks Run to start the command on a new pseudo-terminal that Run
// opens (/dev/ptmx) and relays, so a program that wants a terminal (an
// editor, a REPL, a password prompt, `tty`) gets one — and never the
// user's own terminal, which a command could otherwise drive (job control
// of the user's shell, TIOCSTI where the kernel still allows it).
type Terminal struct {
	// Stdin, Stdout and Stderr say which of the command's standard streams
	// are the new terminal; the others come from Options as usual. What
	// the command reads from the terminal is Options.Stdin; what it writes
	// there is captured (and passed live) as stdout when Stdout is set,
	// else as stderr.
	Stdin, Stdout, Stderr bool
	// Input is the user's terminal, put in raw mode while the command runs
	// and restored on every way out of Run, so that Ctrl-C, Ctrl-Z and
	// every key reach the command's foreground group through the new
	// terminal; nil changes no mode.
	Input *os.File
	// Size is the user's terminal whose window size the new one takes at
	// the start and on every SIGWINCH Run receives; nil leaves 24x80.
	Size *os.File
}

// WindowSize is a terminal's size, for Options.Resize.
type WindowSize struct{ Rows, Cols uint16 }

// ctty decides which of a process's standard descriptors (0, 1, 2) is to
// become its child's controlling terminal: the first that is a terminal.
// It is only ever the new pseudo-terminal: Run never hands the command a
// terminal of the user's (see Options.Stdin).
func ctty(isTTY [3]bool) (int, bool) {
	for fd, t := range isTTY {
		if t {
			return fd, true
		}
	}
	return 0, false
}

// outputStream is where what the command writes to the terminal goes:
// stdout when the terminal is its stdout, else stderr.
func (t *Terminal) outputStream() int {
	if t.Stdout {
		return 1
	}
	return 2
}

// makeRaw is cfmakeraw(3): no input translation, no echo, no line
// editing, no signals from keys (they travel as bytes to the command's
// terminal, whose own line discipline turns them into signals), no output
// processing (the command's terminal does it), 8-bit characters, one byte
// at a time.
func makeRaw(t unix.Termios) unix.Termios {
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return t
}
