package outcome

import (
	"strconv"
	"strings"
)

// CommandText is what run_command (and run_code, write_stdin, kill_process)
// shows of a run: how it ended, then each stream.
type CommandText struct {
	ExitCode *int
	Signal   string
	Kind     string // the result's kind, said when there is no exit code
	Stdout   string
	Stderr   string
	// StdoutSeen and StderrSeen are the bytes written to a stream the
	// sandbox cut at capture; 0 when it was not cut.
	StdoutSeen, StderrSeen int64
}

// Text is the run's text, each stream cut in the middle past maxOutput
// bytes.
func (c CommandText) Text(maxOutput int) string {
	var head string
	switch {
	case c.ExitCode != nil:
		head = "exit code " + strconv.Itoa(*c.ExitCode)
	case c.Signal != "":
		head = "killed by signal " + c.Signal
	default:
		head = "no exit code (" + c.Kind + ")"
	}
	text := head
	text = JoinText(text, Stream("stdout", c.Stdout, c.StdoutSeen, maxOutput))
	text = JoinText(text, Stream("stderr", c.Stderr, c.StderrSeen, maxOutput))
	return text
}

// Stream shows one output stream: its size, the text (cut in the middle
// past maxOutput), and whether the sandbox cut it at capture (seen > 0:
// the bytes written).
func Stream(name, out string, seen int64, maxOutput int) string {
	if out == "" && seen == 0 {
		return ""
	}
	shown, omitted := CutMiddle(out, maxOutput)
	head := "--- " + name + " (" + Plural(int64(len(out)), "byte", "bytes")
	if omitted > 0 {
		head += ", " + strconv.Itoa(omitted) + " omitted here"
	}
	head += ") ---"
	text := head + "\n" + shown
	if seen > 0 {
		text = JoinText(text, "[the sandbox kept only the first "+Plural(int64(len(out)), "byte", "bytes")+
			" of "+Plural(seen, "byte", "bytes")+" written to "+name+"]")
	}
	return text
}

// The reasons a call of a session's run_command ran one-shot instead.
const (
	OneShotNetworkAsk = "the session cannot ask about network hosts mid-run"
	OneShotCPULimit   = "the session cannot enforce the CPU-time limit"
	OneShotNoSessions = "this backend has no sessions"
)

// OneShotWidened: the call's approval widens the session's policy (what,
// e.g. "network").
func OneShotWidened(what string) string {
	return "its approval widens the session's policy (" + what + ")"
}

// OneShotFull: the session runs its most processes (max).
func OneShotFull(max int) string {
	return "the session runs as many processes as it may (" + strconv.Itoa(max) + ")"
}

// RanOneShot follows the text of a call that ran in a sandbox of its own
// for why (one of the OneShot reasons).
func RanOneShot(why string) string {
	return "\n[ran in a sandbox of its own, not in this session's: " + why + "]"
}

// ProcessEnded heads the result of a session process that has ended.
func ProcessEnded(id int) string { return "process_id " + strconv.Itoa(id) + " ended\n" }

// ProcessRunning heads the new output of a session process that runs on.
func ProcessRunning(id int) string { return "process_id " + strconv.Itoa(id) + " is still running" }

// NoProcesses is list_processes' answer for an empty session.
const NoProcesses = "no processes in this session\n"

// LostOutput follows output of which n bytes were dropped unseen (the
// session keeps only the most recent); "" for none.
func LostOutput(n int64) string {
	if n == 0 {
		return ""
	}
	return "\n[" + Plural(n, "byte", "bytes") + " of output were dropped before they could be shown: only the most recent is kept]"
}

// Artifact is one entry of run_code's outputs/ as the text shows it.
type Artifact struct {
	Name    string
	Size    int64
	MIME    string
	SHA256  string // "" when it was refused unread
	SavedTo string // the model path it was saved to, if saved
	Refused string // why it was refused ("" when it was not)
	Detail  string // more about the refusal
	// Unread: a link or special file, refused without being followed or
	// read.
	Unread bool
	// Content is the bytes returned inline; Text says they are text.
	Content []byte
	Text    bool
}

// Outputs is run_code's outputs/ after the run.
type Outputs struct {
	Collected bool // false: the code never ran
	Artifacts []Artifact
	Cut       bool // outputs/ held more than the runner collects
	Omitted   int  // entries not listed
	Env       string
}

// Text lists every artifact, then the text of the small text ones, each
// cut like a stream, up to four streams' worth in all.
func (o Outputs) Text(maxOutput int) string {
	if !o.Collected {
		return "--- outputs: not collected (the code did not run) ---"
	}
	if len(o.Artifacts) == 0 {
		return "--- outputs: none (nothing was written to $" + o.Env + ") ---"
	}
	var b strings.Builder
	b.WriteString("--- outputs (" + Plural(int64(len(o.Artifacts)), "entry", "entries") + ") ---")
	for _, a := range o.Artifacts {
		b.WriteString("\n" + a.line())
	}
	if o.Cut {
		b.WriteString("\n[outputs/ held more than the runner collects")
		if o.Omitted > 0 {
			b.WriteString("; " + Plural(int64(o.Omitted), "entry was", "entries were") + " not listed")
		}
		b.WriteString("]")
	}
	text, budget := b.String(), 4*maxOutput
	for _, a := range o.Artifacts {
		if a.Content == nil || !a.Text || budget <= 0 {
			continue
		}
		shown, omitted := CutMiddle(string(a.Content), min(maxOutput, budget))
		budget -= len(shown)
		head := "--- " + QuoteShort(a.Name) + " (" + Plural(a.Size, "byte", "bytes")
		if omitted > 0 {
			head += ", " + strconv.Itoa(omitted) + " omitted here"
		}
		text = JoinText(text, head+") ---\n"+shown)
	}
	return text
}

func (a Artifact) line() string {
	line := QuoteShort(a.Name)
	if a.Unread {
		return line + ": refused (" + a.Refused + "; never followed or read)"
	}
	refusal := func() string {
		if a.Detail == "" {
			return ": refused (" + a.Refused + ")"
		}
		return ": refused (" + a.Refused + ": " + a.Detail + ")"
	}
	if a.Refused != "" && a.SHA256 == "" {
		return line + " " + Plural(a.Size, "byte", "bytes") + refusal()
	}
	line += " " + Plural(a.Size, "byte", "bytes") + ", " + a.MIME + ", sha256 " + a.SHA256
	switch {
	case a.SavedTo != "":
		line += ": saved to " + a.SavedTo
	case a.Refused != "":
		line += refusal()
	case a.Content != nil && !a.Text:
		line += ": binary, returned in the structured result"
	}
	return line
}
