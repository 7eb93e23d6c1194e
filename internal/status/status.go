// Package status is the channel on which a runner tells its supervisor what
// happened to the command, on a descriptor the command never holds.
//
// Stderr cannot answer "did the command start?": the runner and the command
// share it, so a command can print a runner's failure text and exit with a
// runner's code. The status descriptor is opened by the supervisor, handed
// to the runner (the ringfence init, or bwrap's --json-status-fd), and
// closed before the command is executed, so only the runner can write it.
//
// The ringfence format is one JSON object per line. A runner writes, in
// order: "exec" just before it forks the command, then at most one "failed"
// (and then nothing else) or one "started", then at most one "exited" with
// the command's own wait status.
//
// "exec" is what makes "the command never ran" a fact rather than a guess
// from timing: a runner that dies (or is killed — by the command itself,
// or by the command exhausting the processes it may fork) after "exec" but
// before "started" or "failed" may have run the command, and Read reports
// it as started (Unconfirmed). Without "exec" nothing of the command can
// have existed: the record is written, synchronously, before the fork.
package status

import (
	"bufio"
	"encoding/json"
	"io"
)

// Kinds of event.
const (
	Exec    = "exec"    // the runner is about to fork the command: from here it may have run
	Started = "started" // the command was executed; Pid is its pid in the sandbox
	Failed  = "failed"  // the runner failed before the command ran
	Exited  = "exited"  // the command ended; ExitCode or Signal says how
)

// Reasons a runner gives for Failed.
const (
	NotFound      = "not-found"      // the program does not exist (inside the sandbox)
	NotExecutable = "not-executable" // it exists but cannot be executed
	SetupFailed   = "setup"          // a confinement step failed; Stage names it
)

// Event is one status record.
type Event struct {
	Kind     string `json:"kind"`
	Pid      int    `json:"pid,omitempty"`
	Stage    string `json:"stage,omitempty"`  // for Failed: spec, userns, mounts, landlock, seccomp, caps, exec…
	Reason   string `json:"reason,omitempty"` // for Failed: NotFound, NotExecutable, SetupFailed
	Errno    string `json:"errno,omitempty"`  // for Failed: the errno name, e.g. ENOENT
	Detail   string `json:"detail,omitempty"` // for Failed: a short, fixed description (never command text)
	ExitCode *int   `json:"exitCode,omitempty"`
	Signal   string `json:"signal,omitempty"` // for Exited by signal: e.g. SIGKILL
}

// Summary is what a supervisor learned from the channel once it closed.
type Summary struct {
	Started bool `json:"started"` // a Started record arrived, or see Unconfirmed
	// Unconfirmed: an Exec record arrived but neither Started nor Failed
	// did — the runner ended in between. The command may have run, so
	// Started is set too: "never ran" is never told on a guess.
	Unconfirmed bool   `json:"unconfirmed,omitempty"`
	attempted   bool   // an Exec record arrived
	Failure     *Event `json:"failure,omitempty"` // the Failed record, if any
	Exit        *Event `json:"exit,omitempty"`    // the Exited record, if any
	Silent      bool   `json:"silent"`            // the channel closed with no record at all
}

// Write sends one event as a JSON line.
func Write(w io.Writer, e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read consumes the channel until EOF. Lines it cannot parse are ignored
// rather than trusted; at most 64 records of 4 KiB each are read so a broken
// runner cannot make the supervisor buffer without bound.
func Read(r io.Reader) Summary {
	var s Summary
	sc := bufio.NewScanner(io.LimitReader(r, 64*4096))
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		s.add(e)
	}
	if s.attempted && !s.Started && s.Failure == nil {
		s.Started, s.Unconfirmed = true, true
	}
	s.Silent = !s.Started && s.Failure == nil && s.Exit == nil
	return s
}

func (s *Summary) add(e Event) {
	switch e.Kind {
	case Exec:
		s.attempted = true
	case Started:
		// A Started after a Failed breaks the protocol; of the two, the
		// record that says the command ran is kept (never "never ran" on
		// a contradiction).
		s.Started, s.Failure = true, nil
	case Failed:
		if s.Failure == nil && !s.Started {
			s.Failure = &e
		}
	case Exited:
		if s.Exit == nil {
			s.Exit = &e
		}
	}
}
