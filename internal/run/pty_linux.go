package run

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPTY opens a new pseudo-terminal pair. The slave is reached with
// TIOCGPTPEER, from the master itself, never by a path under /dev/pts that
// something else could have replaced; neither end becomes ringfence's own
// controlling terminal (O_NOCTTY), and both are close-on-exec (the slave
// is handed to the runner explicitly).
func openPTY() (master, slave *os.File, err error) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	master = os.NewFile(uintptr(m), "ptmx")
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlocking the pseudo-terminal: %w", err)
	}
	s, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(m), unix.TIOCGPTPEER, uintptr(unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC))
	if errno != 0 {
		master.Close()
		return nil, nil, fmt.Errorf("opening the pseudo-terminal's peer: %w", errno)
	}
	return master, os.NewFile(s, "pts"), nil
}

// copySize gives the new terminal the user's window size.
func copySize(from, to *os.File) {
	ws, err := unix.IoctlGetWinsize(int(from.Fd()), unix.TIOCGWINSZ)
	if err == nil {
		_ = unix.IoctlSetWinsize(int(to.Fd()), unix.TIOCSWINSZ, ws)
	}
}

// setSize sets the terminal's window size; a zero side is left 24x80's.
func setSize(master *os.File, ws WindowSize) {
	if ws.Rows == 0 || ws.Cols == 0 {
		ws = WindowSize{Rows: 24, Cols: 80}
	}
	_ = unix.IoctlSetWinsize(int(master.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: ws.Rows, Col: ws.Cols})
}

// ptySession is the terminal side of one Run.
type ptySession struct {
	master, slave *os.File
	restore       func()        // puts the user's terminal back; safe twice
	stopResize    chan struct{} // ends the SIGWINCH relay
	resizeDone    chan struct{} // closed once the relay has ended
}

// openTerminal opens the new terminal, sizes it, puts the user's in raw
// mode and starts following its size. release undoes all of it.
func openTerminal(t *Terminal, resize <-chan WindowSize) (*ptySession, error) {
	master, slave, err := openPTY()
	if err != nil {
		return nil, err
	}
	p := &ptySession{master: master, slave: slave, restore: func() {}}
	if resize != nil {
		select {
		case ws := <-resize: // the size from the start
			setSize(master, ws)
		default:
		}
	}
	if t.Size != nil || resize != nil {
		var winch chan os.Signal
		if t.Size != nil {
			copySize(t.Size, master)
			winch = make(chan os.Signal, 1)
			signal.Notify(winch, syscall.SIGWINCH)
		}
		stop, done := make(chan struct{}), make(chan struct{})
		p.stopResize, p.resizeDone = stop, done
		go func() {
			defer close(done)
			if winch != nil {
				defer signal.Stop(winch)
			}
			for {
				select {
				case <-winch: // nil without Size: never ready
					copySize(t.Size, master)
				case ws, ok := <-resize:
					if !ok {
						resize = nil
						continue
					}
					setSize(master, ws)
				case <-stop:
					return
				}
			}
		}()
	}
	if t.Input != nil {
		fd := int(t.Input.Fd())
		orig, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			p.release()
			return nil, fmt.Errorf("the user's terminal: %w", err)
		}
		raw := makeRaw(*orig)
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, &raw); err != nil {
			p.release()
			return nil, fmt.Errorf("raw mode on the user's terminal: %w", err)
		}
		done := false
		p.restore = func() {
			if !done {
				done = true
				_ = unix.IoctlSetTermios(fd, unix.TCSETS, orig)
			}
		}
	}
	return p, nil
}

// feed copies the command's input into the terminal. At the end of the
// input it sends the terminal's end-of-file character, as a person
// pressing Ctrl-D would.
func (p *ptySession) feed(in io.Reader) {
	if in == nil {
		return
	}
	go func() {
		_, err := io.Copy(p.master, in)
		if err == nil || errors.Is(err, io.EOF) {
			_, _ = p.master.Write([]byte{4})
		}
	}()
}

// release restores the user's terminal and stops following its size,
// waiting for the relay to end so nothing touches the master (closed with
// the session's other readers) or the user's terminal afterwards.
func (p *ptySession) release() {
	p.restore()
	if p.stopResize != nil {
		close(p.stopResize)
		<-p.resizeDone
		p.stopResize = nil
	}
}
