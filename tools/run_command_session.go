package tools

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// run_command in the session (issue 15). With the process tools on
// (Options.Processes) every run_command runs in the Set's long-lived
// ringfence.Session — one per MCP session — so /tmp, the loopback network
// and background processes carry from one call to the next, and a call
// costs a fork+exec by the session's init rather than a new sandbox.
//
// A call runs in the session only under the session's exact policy. A
// call whose approval widens the policy (the network) runs one-shot, as
// without sessions, and its result says so (ExecResult.Session) — it never
// runs in the narrower session, nor a narrower call in a wider one (the
// session refuses a differing policy: ringfence.ErrSessionPolicy). A call
// that must stay (background, yield_ms) cannot run one-shot and is
// refused instead.

// runProps adds the session arguments to run_command's schema when the
// process tools are on.
func (s *Set) runProps(props map[string]*prop) map[string]*prop {
	if !s.opts.Processes {
		return props
	}
	props["background"] = boolean("Start it and return while it runs on (a dev server, a database, a watcher): the result " +
		"has its process_id and what it printed in the first yield_ms. It keeps running after the call, in this session's " +
		"sandbox, until it ends, kill_process stops it or the session ends; there is no time limit unless timeout_seconds is given.")
	props["yield_ms"] = integer("Return after this many milliseconds with what it printed so far and its process_id if it still "+
		"runs (it then runs on, within its time limit); default: wait for the end (background: "+
		strconv.Itoa(int(DefaultYield.Milliseconds()))+").", 0, MaxYield.Milliseconds())
	props["tty"] = boolean("Run it on a new terminal (a REPL, an editor, a password prompt); its output is then all on stdout. Needs background or yield_ms.")
	props["rows"] = integer("The terminal's height (tty), default 24.", 1, 1000)
	props["cols"] = integer("The terminal's width (tty), default 80.", 1, 1000)
	return props
}

func (s *Set) runSessionDesc() string {
	if !s.opts.Processes {
		return ""
	}
	return " Commands of this MCP session share one sandbox: its /tmp, its loopback network (a server started in one " +
		"call answers the next on 127.0.0.1) and its background processes; a command that needs wider access than the " +
		"session's (an approved network command) runs in a sandbox of its own, and the result's session.in says which. " +
		"With background or yield_ms the call returns while the command runs on: type to it and read its new output with " +
		"write_stdin, see it with list_processes, stop it with kill_process. At most " + strconv.Itoa(MaxSessionProcesses) +
		" processes run at once."
}

// prepareRun is run_command's check: the command as prepare reads it, and
// the session arguments only where they make sense.
func (s *Set) prepareRun(a *runArgs) error {
	if err := s.prepare(a); err != nil {
		return err
	}
	stays := a.Background || a.YieldMs != nil
	switch {
	case (a.TTY || a.Rows != 0 || a.Cols != 0) && !stays:
		return fail(invalid(`"tty", "rows" and "cols" need "background" or "yield_ms" (a terminal is for a command you type to)`))
	case (a.Rows != 0 || a.Cols != 0) && !a.TTY:
		return fail(invalid(`"rows" and "cols" size a terminal: give "tty": true`))
	}
	return nil
}

// runInSession runs a run_command call in the Set's session. handled is
// false when the call should run one-shot instead; why then says why.
func (s *Set) runInSession(ctx context.Context, a *runArgs, ap *policy.Approval, audit AuditInfo) (r Result, handled bool, why string) {
	p := a.prep
	stays := a.Background || a.YieldMs != nil
	stop := func(o outcome.Outcome) (Result, bool, string) { return Result{Outcome: o, Audit: audit}, true, "" }
	if !stays && s.opts.Gate != nil && s.domainsNetwork() {
		// A one-shot run asks the person about a host no rule names
		// (ExecOptions.NetworkAsk); a session's proxy has nobody to ask.
		return Result{}, false, outcome.OneShotNetworkAsk
	}
	if pol, err := s.sb.Policy(policy.Request{SessionID: s.opts.SessionID}); err == nil && pol.Limits.CPUTime > 0 {
		// A session does not enforce CPU time (ringfence.Session's gaps):
		// fail closed to the one-shot run, which does.
		if stays {
			return stop(outcome.Outcome{Kind: outcome.Unavailable, Detail: "background processes cannot run under a CPU-time limit"})
		}
		return Result{}, false, outcome.OneShotCPULimit
	}
	ses, o := s.session(ctx)
	if o != nil {
		if stays || o.Kind != outcome.Unavailable {
			return stop(*o)
		}
		return Result{}, false, outcome.OneShotNoSessions
	}
	c := ringfence.Cmd{Argv: p.argv, Dir: p.cwd, Timeout: s.opts.DefaultTimeout}
	if ap != nil {
		c.Request = &policy.Request{Approval: ap, SessionID: s.opts.SessionID}
	}
	if a.TimeoutSeconds > 0 {
		c.Timeout = time.Duration(a.TimeoutSeconds) * time.Second
	} else if a.Background {
		c.Timeout = -1 // a server runs until stopped or the session ends
	}
	if a.TTY {
		c.Terminal = &ringfence.WindowSize{Rows: uint16(a.Rows), Cols: uint16(a.Cols)} // 0: 24x80
	}
	if !stays {
		// As one-shot: the input is what was given, then end of file.
		c.Stdin = strings.NewReader("")
		if a.Stdin != nil {
			c.Stdin = strings.NewReader(*a.Stdin)
		}
	}
	proc, err := ses.Start(ctx, c)
	switch {
	case errors.Is(err, ringfence.ErrSessionPolicy) && !stays:
		return Result{}, false, outcome.OneShotWidened(widened(err))
	case errors.Is(err, ringfence.ErrSessionPolicy):
		return stop(invalid("approved, it needs a sandbox of its own (" + widened(err) + "): drop background/yield_ms"))
	case errors.Is(err, ringfence.ErrSessionFull) && !stays:
		// The limit is on what stays; a foreground call still runs.
		return Result{}, false, outcome.OneShotFull(MaxSessionProcesses)
	case errors.Is(err, ringfence.ErrSessionFull):
		return stop(outcome.Outcome{Kind: outcome.OverBudget, Bound: "processes_per_session", Limit: MaxSessionProcesses})
	case errors.Is(err, ringfence.ErrSessionClosed):
		return stop(invalid("the session ended; call run_command again for a new one"))
	case err != nil:
		return stop(s.execError(err, p.cwd))
	}
	if !stays {
		return s.waitForeground(ctx, proc, audit), true, ""
	}
	e := s.track(proc, a)
	if a.Stdin != nil {
		_, _ = proc.Write([]byte(*a.Stdin))
	}
	yield := DefaultYield
	if a.YieldMs != nil {
		yield = time.Duration(*a.YieldMs) * time.Millisecond
	}
	return s.yield(ctx, e, yield, audit), true, ""
}

// waitForeground waits for a command the call does not leave running; a
// call that ends first (the client cancelled it) stops it.
func (s *Set) waitForeground(ctx context.Context, proc *ringfence.Process, audit AuditInfo) Result {
	res, err := proc.Wait(ctx)
	if err != nil {
		_ = proc.Signal(syscall.SIGKILL)
		res, _ = proc.Wait(context.Background())
	}
	r := s.execResult(res, audit)
	r.Data.(*ringfence.ExecResult).Session = &ringfence.SessionRun{In: ringfence.RanInSession}
	return r
}

// track gives a process that stays a process id of this Set.
func (s *Set) track(proc *ringfence.Process, a *runArgs) *procEntry {
	line := strings.Join(a.prep.argv, " ")
	if a.Command != nil {
		line = *a.Command
	}
	s.procs.mu.Lock()
	defer s.procs.mu.Unlock()
	s.procs.next++
	e := &procEntry{id: s.procs.next, p: proc, summary: cutUTF8(line, 200)}
	s.procs.procs[e.id] = e
	s.forgetOldLocked()
	return e
}

// oneShot marks a one-shot result as such, with why it did not run in the
// session (only when the session was a choice).
func oneShot(r Result, why string) Result {
	if d, ok := r.Data.(*ringfence.ExecResult); ok {
		d.Session = &ringfence.SessionRun{In: ringfence.RanOneShot, Why: why}
		r.Text += outcome.RanOneShot(why)
	}
	return r
}
