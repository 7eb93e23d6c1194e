package sandbox

import (
	"os"

	"github.com/ringfence/ringfence/internal/run"
)

// Terminal asks Exec to run the command on a new pseudo-terminal that
// ringfence opens and relays, never on the user's own terminal: a program
// that wants a terminal gets one (tty, stty, an editor, a password
// prompt), and nothing it does can reach the terminal the person typed
// ringfence into.
type Terminal struct {
	// Stdin, Stdout and Stderr say which of the command's streams are the
	// new terminal; the others are ExecOptions' as usual. What the
	// command reads there is ExecOptions.Stdin; what it writes there goes
	// to ExecOptions.Stdout (live and captured) when Stdout is set, else
	// to ExecOptions.Stderr.
	Stdin, Stdout, Stderr bool
	// Input is the user's terminal, put in raw mode while the command runs
	// and restored however Exec returns, so every key — Ctrl-C and Ctrl-Z
	// included — reaches the command's foreground group; nil changes no mode.
	Input *os.File
	// Size is the user's terminal whose window size the new one follows
	// (at the start and on every SIGWINCH); nil is 24x80.
	Size *os.File
}

func (t *Terminal) run() *run.Terminal {
	if t == nil {
		return nil
	}
	rt := run.Terminal(*t)
	return &rt
}
