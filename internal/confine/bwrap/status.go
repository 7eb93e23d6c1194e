package bwrap

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"sync"

	"github.com/ringfence/ringfence/internal/status"
)

// bwrapStatus is one document of bwrap's --json-status-fd stream. bwrap
// writes {"child-pid": N, ...} once the sandbox exists and {"exit-code": N}
// when its child ends; a signal death is folded into 128+N by bwrap.
type bwrapStatus struct {
	ChildPid *int `json:"child-pid"`
	ExitCode *int `json:"exit-code"`
}

// maxStatus bounds what is read from either channel.
const maxStatus = 64 * 4096

// Evidence is what the two channels said once both were closed.
type Evidence struct {
	ChildPid   bool          // bwrap created the sandbox
	ExitCode   *int          // bwrap's report of the command's exit
	ShimStart  *status.Event // the shim's Started record: it was about to execute
	ShimFailed *status.Event // the shim's Failed record: execve failed
	ShimExited *status.Event // a supervising shim's exact report of the exit
}

// ReadBwrap decodes bwrap's JSON documents (one per line) until EOF;
// a line that is not one is skipped, not trusted.
func ReadBwrap(r io.Reader, ev *Evidence) {
	eachLine(r, func(line []byte) {
		var s bwrapStatus
		if json.Unmarshal(line, &s) != nil {
			return
		}
		if s.ChildPid != nil {
			ev.ChildPid = true
		}
		if s.ExitCode != nil && ev.ExitCode == nil {
			ev.ExitCode = s.ExitCode
		}
	})
}

// ReadShim reads the shim's records (internal/status format): Started
// (a second one may add the pid), then at most one Failed or Exited.
// Anything else is ignored, not trusted.
func ReadShim(r io.Reader, ev *Evidence) {
	eachLine(r, func(line []byte) {
		var e status.Event
		if json.Unmarshal(line, &e) != nil {
			return
		}
		switch {
		case e.Kind == status.Started && ev.ShimStart == nil:
			ev.ShimStart = &status.Event{Kind: status.Started, Pid: e.Pid}
		case e.Kind == status.Started && ev.ShimStart.Pid == 0:
			ev.ShimStart.Pid = e.Pid // a supervising shim's pid, once known
		case e.Kind == status.Failed && ev.ShimFailed == nil:
			ev.ShimFailed = &e
		case e.Kind == status.Exited && ev.ShimExited == nil && ev.ShimStart != nil:
			ev.ShimExited = &e
		}
	})
}

// eachLine calls fn for each line of r, bounded in size and count, and
// drains what is left so the writer never blocks on a full pipe.
func eachLine(r io.Reader, fn func([]byte)) {
	sc := bufio.NewScanner(io.LimitReader(r, maxStatus))
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	_, _ = io.Copy(io.Discard, r)
}

// Events translates the evidence into the ringfence status sequence. The
// shim writes Started just before execve and Failed only if execve
// returned, so a Failed after Started means the exec failed. No shim record
// at all means bwrap failed before it ran the shim: a setup failure,
// whatever bwrap printed on the stderr it shares with the command.
func (ev Evidence) Events() []status.Event {
	if ev.ShimFailed != nil {
		f := *ev.ShimFailed
		f.Kind = status.Failed
		return []status.Event{f}
	}
	if ev.ShimStart == nil {
		return []status.Event{{Kind: status.Failed, Reason: status.SetupFailed, Stage: "bwrap",
			Detail: "bwrap exited before it ran the command"}}
	}
	out := []status.Event{*ev.ShimStart}
	if ev.ShimExited != nil {
		return append(out, *ev.ShimExited)
	}
	if ev.ExitCode != nil {
		code := *ev.ExitCode
		out = append(out, status.Event{Kind: status.Exited, ExitCode: &code})
	}
	return out
}

// translate reads both channels to EOF (they close when bwrap and every
// process in the sandbox have exited), then writes the translated events
// to out and closes it, so the supervisor reading out sees EOF last.
func translate(bwrapR, shimR, out *os.File) {
	var ev Evidence
	var wg sync.WaitGroup
	var shim Evidence
	wg.Add(1)
	go func() {
		defer wg.Done()
		ReadShim(shimR, &shim)
	}()
	ReadBwrap(bwrapR, &ev)
	wg.Wait()
	ev.ShimStart, ev.ShimFailed, ev.ShimExited = shim.ShimStart, shim.ShimFailed, shim.ShimExited
	for _, e := range ev.Events() {
		if status.Write(out, e) != nil {
			break
		}
	}
	_ = bwrapR.Close()
	_ = shimR.Close()
	_ = out.Close()
}
