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
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Process tools (issue 15): start_process, write_stdin, list_processes and
// kill_process run commands in one long-lived confined environment per
// Set — one MCP session —, a ringfence.Session made on first use and
// closed by Set.Close. Process ids count from 1 per Set: a session can
// never name, see or signal another's processes (each Set has its own
// ringfence.Session, its own id table).
//
// A command runs in the session only under the session's exact policy: a
// command classified deny is refused; one that asks for approval is asked
// about as run_command asks, and runs in the session only when the
// approval widens nothing (it then only records the decision); an
// approval that widens the policy (the network) cannot run in the
// session's narrower environment and is refused with a pointer to
// run_command.

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
		o := outcome.Outcome{Kind: outcome.Unavailable, Detail: "background processes need the linux backend"}
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

type startArgs struct {
	Command        *string  `json:"command"`
	Argv           []string `json:"argv"`
	Cwd            string   `json:"cwd"`
	Stdin          *string  `json:"stdin"`
	YieldMs        *int64   `json:"yield_ms"`
	TimeoutSeconds int64    `json:"timeout_seconds"`
	TTY            bool     `json:"tty"`
	Rows           int64    `json:"rows"`
	Cols           int64    `json:"cols"`

	run runArgs // the same command read as run_command reads it
}

type stdinArgs struct {
	ProcessID  int64  `json:"process_id"`
	Chars      string `json:"chars"`
	CloseStdin bool   `json:"close_stdin"`
	YieldMs    int64  `json:"yield_ms"`
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
		return &spec[startArgs]{
			set: s, tname: "start_process",
			desc: "Start a command in this session's sandbox over the workspace (" + s.nc.MountPath + "), where it keeps running " +
				"after the call returns: a dev server, a " +
				"database, a REPL, a long build. Every command of the session shares one environment — its /tmp, its loopback " +
				"network (a server started here answers the next call on 127.0.0.1) and its background processes — with the same " +
				"confinement as run_command. Give command (a shell line) or argv. Waits yield_ms (default " +
				strconv.Itoa(int(DefaultYield.Milliseconds())) + ", at most " + strconv.Itoa(int(MaxYield.Milliseconds())) +
				") and returns what it printed so far with its process_id if it still runs, or its full result if it ended. " +
				"Use write_stdin to type into it and read new output, kill_process to stop it. At most " +
				strconv.Itoa(MaxSessionProcesses) + " processes run at once.",
			schema: obj(nil, map[string]*prop{
				"command":         str("A shell command line. Give this or argv, not both.", 1, s.opts.MaxArgBytes),
				"argv":            array("The program and its arguments, run without a shell.", str("", 0, s.opts.MaxArgBytes), 1, maxArgv),
				"cwd":             str("The working directory: relative to the workspace, or under "+s.nc.MountPath+".", 0, maxPathChars),
				"stdin":           str("Text typed to the process first; its input stays open for write_stdin.", 0, s.opts.MaxArgBytes),
				"yield_ms":        integer("How long to wait for output or the end before returning.", 0, MaxYield.Milliseconds()),
				"timeout_seconds": integer("Stop the process after this many seconds; default: it runs until stopped or the session ends.", 1, 24*3600),
				"tty":             boolean("Run it on a new terminal (for programs that want one: an editor, a pager, a password prompt); its output is then all on stdout."),
				"rows":            integer("The terminal's height (tty), default 24.", 1, 1000),
				"cols":            integer("The terminal's width (tty), default 80.", 1, 1000),
			}),
			check: s.prepareStart,
			perms: func(a *startArgs) ([]string, error) { return s.commandPermissions(&a.run) },
			run:   s.startProcess,
		}
	})
	register(func(s *Set) tool {
		if !s.opts.Processes {
			return nil
		}
		return &spec[stdinArgs]{
			set: s, tname: "write_stdin",
			desc: "Type chars into a process started by start_process in this session's sandbox over " + s.nc.MountPath +
				" (a newline is not added), optionally close its input, wait " +
				"yield_ms for it to answer, and return the output it printed since it was last shown, or its result if it ended. " +
				"chars may be empty, to read new output.",
			schema: obj([]string{"process_id"}, map[string]*prop{
				"process_id":  integer("The process, as start_process returned it.", 1, 1<<31),
				"chars":       str("The text to type.", 0, s.opts.MaxArgBytes),
				"close_stdin": boolean("Close the process's input after chars (end of file)."),
				"yield_ms":    integer("How long to wait for output or the end before returning.", 0, MaxYield.Milliseconds()),
			}),
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
			set: s, tname: "list_processes",
			desc: "List the processes start_process started in this session's sandbox over " + s.nc.MountPath +
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
			set: s, tname: "kill_process",
			desc: "Send a signal (TERM by default; KILL, INT, HUP, QUIT, USR1, USR2) to a process start_process started in this " +
				"session's sandbox over " + s.nc.MountPath + ", and to " +
				"what it started in its process group; waits up to two seconds and says whether it ended.",
			schema: obj([]string{"process_id"}, map[string]*prop{
				"process_id": integer("The process, as start_process returned it.", 1, 1<<31),
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

func (s *Set) prepareStart(a *startArgs) error {
	a.run = runArgs{Command: a.Command, Argv: a.Argv, Cwd: a.Cwd}
	return s.prepare(&a.run)
}

func (s *Set) startProcess(ctx context.Context, a *startArgs) Result {
	p := a.run.prep
	audit := AuditInfo{Programs: p.programs, Capability: p.class.Capability.String(), Classified: p.class.Outcome.String(), Class: &p.class}
	stop := func(o outcome.Outcome) Result { return Result{Outcome: o, Audit: audit} }
	if p.class.Outcome == execpolicy.Deny {
		return stop(outcome.Outcome{Kind: outcome.DeniedByPolicy, Axis: axisExec, Program: p.class.Program, Detail: p.class.Capability.String()})
	}
	if o := s.checkCwd(p.cwd); o != nil {
		return stop(*o)
	}
	var req *policy.Request
	if p.class.Outcome == execpolicy.AskApproval {
		ap, o := s.approveExec(ctx, p, &audit, func() Question {
			perms, _ := s.commandPermissions(&a.run)
			return Question{Tool: "start_process", Summary: s.commandSummary(&a.run), Permissions: perms, Classification: p.class}
		})
		if o != nil {
			return stop(*o)
		}
		req = &policy.Request{Approval: ap, SessionID: s.opts.SessionID}
	}
	ses, o := s.session(ctx)
	if o != nil {
		return stop(*o)
	}
	c := ringfence.Cmd{Argv: p.argv, Dir: p.cwd, Request: req, Timeout: -1}
	if a.TTY {
		c.Terminal = &ringfence.WindowSize{Rows: uint16(a.Rows), Cols: uint16(a.Cols)} // 0: 24x80
	}
	if a.TimeoutSeconds > 0 {
		c.Timeout = time.Duration(a.TimeoutSeconds) * time.Second
	}
	proc, err := ses.Start(ctx, c)
	switch {
	case errors.Is(err, ringfence.ErrSessionPolicy):
		return stop(invalid("its approval widens the session's policy (" + widened(err) + "): use run_command for it"))
	case errors.Is(err, ringfence.ErrSessionFull):
		return stop(outcome.Outcome{Kind: outcome.OverBudget, Bound: "processes_per_session", Limit: MaxSessionProcesses})
	case errors.Is(err, ringfence.ErrSessionClosed):
		return stop(invalid("the session ended; call start_process again for a new one"))
	case err != nil:
		return stop(s.execError(err, p.cwd))
	}
	s.procs.mu.Lock()
	s.procs.next++
	e := &procEntry{id: s.procs.next, p: proc, summary: summaryOf(a)}
	s.procs.procs[e.id] = e
	s.forgetOldLocked()
	s.procs.mu.Unlock()
	if a.Stdin != nil {
		_, _ = proc.Write([]byte(*a.Stdin))
	}
	yield := DefaultYield
	if a.YieldMs != nil {
		yield = time.Duration(*a.YieldMs) * time.Millisecond
	}
	return s.yield(ctx, e, yield, audit)
}

// widened names what differs, without values.
func widened(err error) string {
	var pm *ringfence.PolicyMismatchError
	if errors.As(err, &pm) {
		return strings.ToLower(strings.Join(pm.Differs, ", "))
	}
	return "policy"
}

func summaryOf(a *startArgs) string {
	line := strings.Join(a.run.prep.argv, " ")
	if a.Command != nil {
		line = *a.Command
	}
	return cutUTF8(line, 200)
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
		views = append(views, v)
		fmt.Fprintf(&b, "%d\t%s\t%s\n", v.ProcessID, v.State, s.scrub(e.summary))
	}
	if len(entries) == 0 {
		b.WriteString("no processes in this session\n")
	}
	return Result{Text: b.String(), Outcome: outcome.Outcome{Kind: outcome.OK}, Data: views}
}

// ProcessView is a process as the process tools show it (Result.Data of
// list_processes, and of the other tools while it runs).
type ProcessView struct {
	ProcessID int    `json:"process_id"`
	State     string `json:"state"` // running | exited N | killed by SIG… | not started
	Stdout    string `json:"stdout,omitempty"`
	Stderr    string `json:"stderr,omitempty"`
	// Lost counts output printed since the last call that was dropped
	// before it could be shown (only the most recent is kept).
	Lost int64 `json:"lost,omitempty"`
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
// and that it runs on.
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
		r.Text = "process_id " + strconv.Itoa(e.id) + " ended\n" + r.Text + lostNote(lostOut+lostErr)
		return r
	default:
	}
	out, next, lostOut := e.p.Stdout.Since(e.outOff)
	errb, nextErr, lostErr := e.p.Stderr.Since(e.errOff)
	e.outOff, e.errOff = next, nextErr
	v := ProcessView{ProcessID: e.id, State: "running", Stdout: s.scrub(string(out)), Stderr: s.scrub(string(errb)), Lost: lostOut + lostErr}
	text := "process_id " + strconv.Itoa(e.id) + " is still running"
	text = joinText(text, s.stream("stdout", v.Stdout, 0))
	text = joinText(text, s.stream("stderr", v.Stderr, 0))
	text += lostNote(v.Lost)
	return Result{Text: text, Outcome: outcome.Outcome{Kind: outcome.OK}, Data: &v, Audit: audit}
}

func lostNote(n int64) string {
	if n == 0 {
		return ""
	}
	return "\n[" + plural(n, "byte", "bytes") + " of output were dropped before they could be shown: only the most recent is kept]"
}
