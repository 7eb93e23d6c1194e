package initproc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ringfence/ringfence/internal/status"
)

// A session init (Spec.Session) builds the view and confines itself as a
// one-shot init does, then, instead of starting one command, serves
// requests on its control socket: each "start" is forked and executed by
// the already-confined init, so it gets exactly the confinement a one-shot
// command gets, without a second namespace set-up or Go start.
//
// The control socket is a SOCK_SEQPACKET socketpair end inherited by the
// init only: it is marked close-on-exec with every other inherited
// descriptor before the view is built, it has no name to connect to, and
// the init is not dumpable, so no command can open it through /proc, reach
// it, or forge a message on it.

// Ops of a control request (supervisor → init).
const (
	OpStart  = "start"  // fork+exec Argv with the three descriptors passed
	OpSignal = "signal" // send Sig to process ID's group; SIGKILL ends its whole tree (killTree)
	OpResize = "resize" // set the window size of process ID's terminal
)

// Kinds of a control report (init → supervisor) beyond the status kinds
// (status.Started, status.Failed, status.Exited, which carry an Event).
const (
	ReportReady = "ready" // the init is confined and serving
)

// MaxControlMsg bounds one control message (an argv and environment).
const MaxControlMsg = 1 << 20

// ControlMsg is one message on the control socket, either way.
type ControlMsg struct {
	Op   string   `json:"op,omitempty"`
	ID   uint64   `json:"id,omitempty"`
	Argv []string `json:"argv,omitempty"`
	Env  []string `json:"env,omitempty"`
	Dir  string   `json:"dir,omitempty"`
	Sig  int      `json:"sig,omitempty"`
	// Terminal, on a start, runs the command on a new pseudo-terminal of
	// the view's own devpts (so ttyname names it, /dev/pts/N inside the
	// sandbox, and no host terminal is ever the command's): the init
	// relays the first descriptor passed to its input and its output to
	// the second. On a resize it is the new size.
	Terminal *Winsize `json:"terminal,omitempty"`
	// Kind and Event are the init's report about process ID.
	Kind  string        `json:"kind,omitempty"`
	Event *status.Event `json:"event,omitempty"`
}

// Winsize is a terminal's size.
type Winsize struct {
	Rows uint16 `json:"rows"`
	Cols uint16 `json:"cols"`
}

// ControlFD is the descriptor the session init's control socket is on:
// the next after the spec, status and (under the domains network) handoff
// descriptors.
func ControlFD(spec *Spec) int {
	if spec.Proxy != nil {
		return HandoffFD + 1
	}
	return HandoffFD
}

// DecodeRequest parses and checks one request the init received. Anything
// malformed is refused, never guessed at.
func DecodeRequest(b []byte) (*ControlMsg, error) {
	if len(b) == 0 || len(b) > MaxControlMsg {
		return nil, errors.New("control: bad message size")
	}
	var m ControlMsg
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	if m.ID == 0 {
		return nil, errors.New("control: no process id")
	}
	switch m.Op {
	case OpStart:
		if len(m.Argv) == 0 || m.Argv[0] == "" {
			return nil, errors.New("control: empty argv")
		}
		if t := m.Terminal; t != nil && (t.Rows == 0 || t.Cols == 0) {
			return nil, errors.New("control: terminal without a size")
		}
		if m.Dir == "" || m.Dir[0] != '/' {
			return nil, errors.New("control: working directory must be absolute")
		}
		for _, s := range append(append([]string{m.Dir}, m.Argv...), m.Env...) {
			for i := 0; i < len(s); i++ {
				if s[i] == 0 {
					return nil, errors.New("control: NUL in argv, env or dir")
				}
			}
		}
	case OpSignal:
		if m.Sig <= 0 || m.Sig >= 65 {
			return nil, fmt.Errorf("control: bad signal %d", m.Sig)
		}
	case OpResize:
		if m.Terminal == nil || m.Terminal.Rows == 0 || m.Terminal.Cols == 0 {
			return nil, errors.New("control: resize without a size")
		}
	default:
		return nil, fmt.Errorf("control: unknown op %q", m.Op)
	}
	return &m, nil
}

// DecodeReport parses one report the supervisor received from the init.
// The init runs confined code's neighbour, not the command: still, a
// report is only believed when it is well formed.
func DecodeReport(b []byte) (*ControlMsg, error) {
	if len(b) == 0 || len(b) > MaxControlMsg {
		return nil, errors.New("control: bad report size")
	}
	var m ControlMsg
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	switch m.Kind {
	case ReportReady:
		return &m, nil
	case status.Started, status.Failed, status.Exited:
		if m.ID == 0 || m.Event == nil || m.Event.Kind != m.Kind {
			return nil, errors.New("control: report without process or event")
		}
		return &m, nil
	}
	return nil, fmt.Errorf("control: unknown report %q", m.Kind)
}
