package outcome

import (
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/internal/status"
)

// Each narrator states what happened, then what to do instead. Fields the
// model or a command supplied go through quote (bounded, escaped); fixed
// vocabulary goes through clean. Nothing else is ever interpolated.

func narrateOK(o Outcome, c Context) string {
	if o.ExitCode != nil {
		return "The command ran and exited with code " + strconv.Itoa(*o.ExitCode) + "." + tmpNote(c)
	}
	if o.Path != "" {
		return "Done: " + quote(o.Path) + "."
	}
	return "Done."
}

func narrateNotFound(o Outcome, _ Context) string {
	switch {
	case o.Program != "":
		return "The program " + quote(o.Program) + " was not found inside the sandbox, so nothing ran. " +
			"Check its name, or use a program that is installed; this is not a sandbox refusal."
	case o.Path != "":
		return quote(o.Path) + " does not exist. Check the path, for example by listing its parent directory."
	}
	return "The program to run was not found inside the sandbox, so nothing ran. " +
		"Check its name, or use a program that is installed; this is not a sandbox refusal."
}

func narrateDenied(o Outcome, c Context) string {
	if o.Axis == AxisExec {
		return narrateExecDenied(o)
	}
	if o.Axis == "read" {
		return "Reading " + quote(o.Path) + " was refused by the sandbox policy: it is not readable" + inMode(c) + ". " +
			"Do not retry it; work with other files, or ask the user to allow reading it."
	}
	text := "Writing " + quote(o.Path) + " was refused by the sandbox policy: it is not writable" + inMode(c) + ". "
	if len(writeRoots(o, c)) == 0 {
		if c.Audience == AudienceCLI {
			return text + "Nothing is writable here; allow it with --write PATH if it is needed."
		}
		return text + "Nothing is writable here; ask the user to approve writing it if it is needed."
	}
	if c.Audience == AudienceCLI {
		return text + "Write somewhere writable " + rootList(o, c) + ", or allow it with --write PATH."
	}
	return text + "Write somewhere writable " + rootList(o, c) + ", or ask the user to approve writing it."
}

func narrateGateDeclined(o Outcome, _ Context) string {
	text := "The person reviewing this action declined it"
	if o.Note != "" {
		text += ", with the note " + quote(o.Note)
	}
	return text + ". It was not run. Do not retry it unchanged; take another approach or ask the user what they want."
}

func narrateGateUnavailable(o Outcome, _ Context) string {
	switch o.Reason {
	case ReasonNoGate, ReasonNoApprover:
		// Nobody can ever answer on this connection: "retry later" would
		// send the model round in a loop, or to find another way to ask.
		return "This action needs a person's approval, and this client cannot approve actions, " +
			"so the policy decided: not run. Retrying will be refused the same way. " +
			"Do the work another way that needs no approval (a narrower command that only reads " +
			"or writes inside the workspace, or run_code for computation), or ask the user to run it themselves."
	case ReasonGateTimeout:
		return "This action needs a person's approval, but no answer came in time, so it was not run. " +
			"Ask the user whether they want it, or choose an action that needs no approval."
	}
	return "This action needs a person's approval, but the approval channel failed, so it was not run. " +
		"Choose an action that needs no approval, or ask the user to check their client."
}

func narrateScopeLimited(o Outcome, _ Context) string {
	text := "The listing stopped at its " + clean(o.Bound) + " limit of " + n64(o.Limit) +
		"; " + strconv.Itoa(o.Shown) + " entries are shown and there are more"
	if o.Path != "" {
		text += " under " + quote(o.Path)
	}
	return text + ". List a subdirectory or use a narrower pattern to see the rest."
}

func narrateNotRegular(o Outcome, _ Context) string {
	kind := "special file"
	if o.FileType != "" {
		kind = clean(o.FileType)
	}
	text := quote(o.Path) + " is not a regular file (it is a " + kind + "), so it was not opened. "
	if o.FileType == "symlink" {
		return text + "Links are not followed; name the file it points to, if that is inside the workspace."
	}
	return text + "Only regular files can be read or written."
}

func narrateIsDir(o Outcome, _ Context) string {
	return quote(o.Path) + " is a directory. List it to see its entries, or name a file inside it."
}

func narrateNotDir(o Outcome, _ Context) string {
	return quote(o.Path) + " is not a directory. Name a directory to list or search, or read it as a file."
}

func narrateNoMatches(o Outcome, _ Context) string {
	text := "No matches for " + quote(o.Pattern)
	if o.Scope != "" {
		text += " in " + quote(o.Scope)
	}
	return text + ". The search completed; try a broader pattern or another directory."
}

func narrateUnknownMedia(o Outcome, _ Context) string {
	return quote(o.Path) + " is of a media type this tool cannot return. " +
		"Inspect it another way (for example its size or type), or work with a text file instead."
}

func narrateInvalidPattern(o Outcome, _ Context) string {
	return "The pattern " + quote(o.Pattern) + " is not valid" + detail(o) + ". Fix its syntax and try again."
}

func narrateIOFailure(o Outcome, _ Context) string {
	text := "A filesystem error occurred"
	if o.Path != "" {
		text += " on " + quote(o.Path)
	}
	return text + detail(o) + ". This is not a policy refusal; check the path, and retry only if the error looks transient."
}

func narrateAborted(_ Outcome, c Context) string { return c.say(phAborted) }

func narrateInvalidArguments(o Outcome, _ Context) string {
	return "The tool call's arguments were not valid" + detail(o) + ". Nothing was done; fix the arguments and call again."
}

func narrateUnavailable(o Outcome, c Context) string {
	return "No sandbox on this host can enforce the requested policy" + detail(o) + ", so nothing ran. " +
		c.say(phUnavailableAdvice)
}

func narrateMissingProgram(o Outcome, _ Context) string {
	name := "The interpreter"
	if o.Program != "" {
		name += " " + quote(o.Program)
	}
	return name + " is not installed in the sandbox, so the code did not run. " +
		"Use a language that is available, or ask the user to install it."
}

func narrateRunnerFailure(o Outcome, c Context) string {
	var facts []string
	if o.Stage != "" {
		facts = append(facts, "stage "+clean(o.Stage))
	}
	if o.Reason != "" {
		facts = append(facts, runnerReason(o.Reason))
	}
	text := "The sandbox could not start the command"
	if len(facts) > 0 {
		text += " (" + strings.Join(facts, ", ") + ")"
	}
	return text + "; the command never ran. " + c.say(phRunnerAdvice)
}

// runnerReasons explain the reasons a runner failure can carry.
var runnerReasons = map[string]string{
	status.SetupFailed: "a confinement step failed",
	RunnerSilent:       "the runner stopped without reporting",
	RunnerDiagnostic:   "the backend reported its own failure",
}

func runnerReason(r string) string {
	if why, ok := runnerReasons[r]; ok {
		return why
	}
	return "reason " + clean(r)
}

func inMode(c Context) string {
	if c.Mode == "" {
		return ""
	}
	return " in " + clean(c.Mode) + " mode"
}

func detail(o Outcome) string {
	if o.Detail == "" {
		return ""
	}
	return ": " + clean(o.Detail)
}

func n64(n int64) string { return strconv.FormatInt(n, 10) }
