package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Process tools (issue 15): with Options.Processes, run_command runs in
// one long-lived confined environment per Set — one MCP session —, a
// ringfence.Session made on first use and closed by Set.Close
// (run_command_session.go); a command run with background or yield_ms
// stays, and write_stdin, list_processes and kill_process reach it by a
// process id. Process ids count from 1 per Set: a session can never name,
// see or signal another's processes (each Set has its own
// ringfence.Session, its own id table).
//
// A command runs in the session only under the session's exact policy: a
// command classified deny is refused; one that asks for approval is asked
// about as always, and runs in the session only when the approval widens
// nothing (it then only records the decision); a call whose approval
// widens the policy (the network) runs one-shot, or is refused when it
// asked to stay (background, yield_ms).

// Limits of the process tools.
const (
	MaxSessionProcesses = 16        // running at once per session
	SessionOutputKept   = 256 << 10 // recent bytes kept per stream per process
	MaxYield            = 60 * time.Second
	DefaultYield        = time.Second
	maxListed           = 100
)

// processState is a Set's session and its processes.
type processState struct {
	mu     sync.Mutex
	ses    *ringfence.Session
	procs  map[int]*procEntry
	next   int
	closed bool
}

type procEntry struct {
	id      int
	p       *ringfence.Process
	summary string // the command line, for list_processes
	outOff  int64  // what the model has been shown of each stream
	errOff  int64
	mu      sync.Mutex // one reader of new output at a time
}

// Close ends the Set's session (every process it started); a Set's later
// process calls are refused. Safe to call more than once.
func (s *Set) Close() error {
	s.procs.mu.Lock()
	ses := s.procs.ses
	s.procs.closed, s.procs.ses = true, nil
	s.procs.mu.Unlock()
	if ses != nil {
		return ses.Close()
	}
	return nil
}

// session returns the Set's live session, starting one if needed.
func (s *Set) session(ctx context.Context) (*ringfence.Session, *outcome.Outcome) {
	s.procs.mu.Lock()
	defer s.procs.mu.Unlock()
	if s.procs.closed {
		o := invalid("this session has ended")
		return nil, &o
	}
	if ses := s.procs.ses; ses != nil {
		select {
		case <-ses.Done(): // idle timeout or a breach: start afresh
		default:
			return ses, nil
		}
	}
	ses, err := s.sb.Session(ctx, policy.Request{SessionID: s.opts.SessionID},
		ringfence.SessionOptions{MaxProcesses: MaxSessionProcesses, OutputKept: SessionOutputKept})
	if err != nil {
		o := outcome.Outcome{Kind: outcome.Unavailable, Detail: "background processes need sessions (the linux or landlock backend)"}
		if !errors.Is(err, ringfence.ErrSessionUnsupported) {
			o = s.execError(err, "")
		}
		return nil, &o
	}
	s.procs.ses = ses
	if s.procs.procs == nil {
		s.procs.procs = map[int]*procEntry{}
	}
	return ses, nil
}

type stdinArgs struct {
	ProcessID  int64  `json:"process_id"`
	Chars      string `json:"chars"`
	CloseStdin bool   `json:"close_stdin"`
	YieldMs    int64  `json:"yield_ms"`
	Rows       int64  `json:"rows"`
	Cols       int64  `json:"cols"`
}

type listProcArgs struct{}

type killArgs struct {
	ProcessID int64  `json:"process_id"`
	Signal    string `json:"signal"`
}

// signals kill_process may send.
var signals = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "INT": syscall.SIGINT,
	"HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2}

func init() {
	register(func(s *Set) tool {
		if !s.opts.Processes {
			return nil
		}
		return &spec[stdinArgs]{
			set: s, tname: "write_stdin", title: "Type to a running process", data: dataType[ringfence.ExecResult](),
			hints: Hints{Destructive: true},
			desc: "Type chars into a process run_command left running (background or yield_ms) in this session's sandbox over " +
				s.nc.MountPath + " (a newline is not added), optionally close its input or resize its terminal (rows and cols, " +
				"tty processes), wait yield_ms for it to answer, and return the output it printed since it was last shown, or its " +
				"result if it ended. chars may be empty, to read new output.",
			schema: obj([]string{"process_id"}, map[string]*prop{
				"process_id":  integer("The process, as run_command returned it.", 1, 1<<31),
				"chars":       str("The text to type.", 0, s.opts.MaxArgBytes),
				"close_stdin": boolean("Close the process's input after chars (end of file)."),
				"yield_ms":    integer("How long to wait for output or the end before returning.", 0, MaxYield.Milliseconds()),
				"rows":        integer("Resize its terminal to this height (with cols; tty processes only).", 1, 1000),
				"cols":        integer("Resize its terminal to this width (with rows).", 1, 1000),
			}),
			check: func(a *stdinArgs) error {
				if (a.Rows == 0) != (a.Cols == 0) {
					return fail(invalid(`give both "rows" and "cols" to resize, or neither`))
				}
				return nil
			},
			perms: func(a *stdinArgs) ([]string, error) {
				return []string{"process:" + strconv.FormatInt(a.ProcessID, 10)}, nil
			},
			run: s.writeStdin,
		}
	})
	register(func(s *Set) tool {
		if !s.opts.Processes {
			return nil
		}
		return &spec[listProcArgs]{
			set: s, tname: "list_processes", title: "List running processes", data: dataType[ProcessList](),
			hints: readOnly,
			desc: "List the processes run_command left running (background or yield_ms) in this session's sandbox over " + s.nc.MountPath +
				": each one's process_id, whether it still runs or how it ended (exit code or signal), and its command line.",
			schema: obj(nil, map[string]*prop{}),
			perms:  func(*listProcArgs) ([]string, error) { return nil, nil },
			run:    s.listProcesses,
		}
	})
	register(func(s *Set) tool {
		if !s.opts.Processes {
			return nil
		}
		return &spec[killArgs]{
			set: s, tname: "kill_process", title: "Signal a running process", data: dataType[ringfence.ExecResult](),
			hints: Hints{Destructive: true},
			desc: "Send a signal (TERM by default; KILL, INT, HUP, QUIT, USR1, USR2) to a process run_command left running in this " +
				"session's sandbox over " + s.nc.MountPath + ", and to " +
				"what it started in its process group; waits up to two seconds and says whether it ended.",
			schema: obj([]string{"process_id"}, map[string]*prop{
				"process_id": integer("The process, as run_command returned it.", 1, 1<<31),
				"signal":     str("The signal's name.", 0, 8),
			}),
			check: func(a *killArgs) error {
				if a.Signal == "" {
					a.Signal = "TERM"
				}
				a.Signal = strings.TrimPrefix(strings.ToUpper(a.Signal), "SIG")
				if _, ok := signals[a.Signal]; !ok {
					return fail(invalid("signal must be one of TERM, KILL, INT, HUP, QUIT, USR1, USR2"))
				}
				return nil
			},
			perms: func(a *killArgs) ([]string, error) {
				return []string{"process:" + strconv.FormatInt(a.ProcessID, 10)}, nil
			},
			run: s.killProcess,
		}
	})
}

// widened names what differs, without values.
func widened(err error) string {
	var pm *ringfence.PolicyMismatchError
	if errors.As(err, &pm) {
		return strings.ToLower(strings.Join(pm.Differs, ", "))
	}
	return "policy"
}

// forgetOldLocked keeps the id table bounded: ended processes beyond
// maxListed are forgotten, oldest first.
func (s *Set) forgetOldLocked() {
	if len(s.procs.procs) <= maxListed {
		return
	}
	ids := make([]int, 0, len(s.procs.procs))
	for id := range s.procs.procs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if len(s.procs.procs) <= maxListed {
			return
		}
		if !s.procs.procs[id].p.Running() {
			delete(s.procs.procs, id)
		}
	}
}

// entry finds a process of this Set by the model's id.
func (s *Set) entry(id int64) (*procEntry, *outcome.Outcome) {
	s.procs.mu.Lock()
	defer s.procs.mu.Unlock()
	if e, ok := s.procs.procs[int(id)]; ok && id > 0 {
		return e, nil
	}
	o := invalid("no process " + strconv.FormatInt(id, 10) + " in this session (list_processes shows them)")
	return nil, &o
}

func (s *Set) writeStdin(ctx context.Context, a *stdinArgs) Result {
	e, o := s.entry(a.ProcessID)
	if o != nil {
		return Result{Outcome: *o}
	}
	// The resize comes first: what is typed next is read at the new size.
	if a.Rows != 0 {
		if err := e.p.Resize(ringfence.WindowSize{Rows: uint16(a.Rows), Cols: uint16(a.Cols)}); err != nil {
			return Result{Outcome: invalid("process " + strconv.FormatInt(a.ProcessID, 10) + " has no terminal to resize (start it with tty)")}
		}
	}
	if a.Chars != "" {
		if _, err := e.p.Write([]byte(a.Chars)); err != nil && e.p.Running() {
			return Result{Outcome: invalid("the process's input is closed")}
		}
	}
	if a.CloseStdin {
		_ = e.p.CloseStdin()
	}
	return s.yield(ctx, e, time.Duration(a.YieldMs)*time.Millisecond, AuditInfo{})
}

func (s *Set) killProcess(ctx context.Context, a *killArgs) Result {
	e, o := s.entry(a.ProcessID)
	if o != nil {
		return Result{Outcome: *o}
	}
	if e.p.Running() {
		_ = e.p.Signal(signals[a.Signal])
	}
	return s.yield(ctx, e, 2*time.Second, AuditInfo{})
}

func (s *Set) listProcesses(_ context.Context, _ *listProcArgs) Result {
	s.procs.mu.Lock()
	entries := make([]*procEntry, 0, len(s.procs.procs))
	for _, e := range s.procs.procs {
		entries = append(entries, e)
	}
	s.procs.mu.Unlock()
	sort.Slice(entries, func(i, j int) bool { return entries[i].id < entries[j].id })
	var b strings.Builder
	views := make([]ProcessView, 0, len(entries))
	for _, e := range entries {
		v := e.view()
		v.Command = s.scrub(e.summary)
		views = append(views, v)
		fmt.Fprintf(&b, "%d\t%s\t%s\n", v.ProcessID, v.State, v.Command)
	}
	if len(entries) == 0 {
		b.WriteString(outcome.NoProcesses)
	}
	return Result{Text: b.String(), Outcome: outcome.Outcome{Kind: outcome.OK}, Data: &ProcessList{Processes: views}}
}

// ProcessList is list_processes' Result.Data.
type ProcessList struct {
	Processes []ProcessView `json:"processes"`
}

// ProcessView is a process as list_processes shows it.
type ProcessView struct {
	ProcessID int    `json:"process_id"`
	State     string `json:"state"` // running | exited N | killed by SIG… | not started
	Command   string `json:"command"`
}

func (e *procEntry) view() ProcessView {
	v := ProcessView{ProcessID: e.id, State: "running"}
	select {
	case <-e.p.Done():
		res, _ := e.p.Wait(context.Background())
		switch {
		case res.ExitCode != nil:
			v.State = "exited " + strconv.Itoa(*res.ExitCode)
		case res.Signal != "":
			v.State = "killed by " + res.Signal
		default:
			v.State = string(res.Kind)
		}
	default:
	}
	return v
}

// yield waits up to d for the process to end (or ctx), then shows what it
// printed since last shown: its result if it ended, else its output so far
// and that it runs on — both as an ExecResult whose Session has the
// process id (one data type for run_command, write_stdin, kill_process).
func (s *Set) yield(ctx context.Context, e *procEntry, d time.Duration, audit AuditInfo) Result {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.p.Done():
	case <-t.C:
	case <-ctx.Done():
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.p.Done():
		res, _ := e.p.Wait(context.Background())
		out, _, lostOut := e.p.Stdout.Since(e.outOff)
		errb, _, lostErr := e.p.Stderr.Since(e.errOff)
		e.outOff, e.errOff = e.p.Stdout.Total(), e.p.Stderr.Total()
		d := *res
		d.Stdout, d.Stderr, d.Truncated = string(out), string(errb), nil // only what was not shown yet
		r := s.execResult(&d, audit)
		r.Data.(*ringfence.ExecResult).Session = &ringfence.SessionRun{In: ringfence.RanInSession, ProcessID: e.id}
		r.Text = outcome.ProcessEnded(e.id) + r.Text + outcome.LostOutput(lostOut+lostErr)
		return r
	default:
	}
	out, next, lostOut := e.p.Stdout.Since(e.outOff)
	errb, nextErr, lostErr := e.p.Stderr.Since(e.errOff)
	e.outOff, e.errOff = next, nextErr
	// While it runs the ExecResult holds only the new output (and, when
	// some was dropped unseen, Truncated: the totals written so far).
	x := &ringfence.ExecResult{Stdout: s.scrub(string(out)), Stderr: s.scrub(string(errb)), Backend: s.sb.Backend(),
		Outcome: outcome.Outcome{Kind: outcome.OK}, Violations: []outcome.Violation{},
		Session: &ringfence.SessionRun{In: ringfence.RanInSession, ProcessID: e.id, Running: true}}
	text := outcome.ProcessRunning(e.id)
	text = outcome.JoinText(text, outcome.Stream("stdout", x.Stdout, 0, s.opts.MaxOutputBytes))
	text = outcome.JoinText(text, outcome.Stream("stderr", x.Stderr, 0, s.opts.MaxOutputBytes))
	text += outcome.LostOutput(lostOut + lostErr)
	if lostOut+lostErr > 0 {
		x.Truncated = &ringfence.Truncated{Stdout: e.p.Stdout.Total(), Stderr: e.p.Stderr.Total()}
	}
	return Result{Text: text, Outcome: outcome.Outcome{Kind: outcome.OK}, Data: x, Audit: audit}
}
