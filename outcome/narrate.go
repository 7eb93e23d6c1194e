package outcome

import "strings"

// kinds is every Kind, in the order of outcome.go. A test parses outcome.go
// and fails if a constant is missing here, and another fails if a kind
// here has no narrator or no golden file: a kind cannot be added unnarrated.
var kinds = []Kind{
	OK, NotFound, DeniedByPolicy, GateDeclined, GateUnavailable, OverBudget,
	ScopeLimited, NotARegularFile, IsADirectory, PathRejected, OutsideWriteRoot,
	SandboxViolation, NonzeroExit, NoMatches, UnknownMedia, InvalidPattern,
	NotADirectory, IOFailure, Aborted, TimedOut, RunnerFailure, InvalidArguments,
	Unavailable, MissingProgram,
}

// Kinds returns every model-facing kind, in declaration order.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// narrators holds one sentence shape per kind.
var narrators = map[Kind]func(Outcome, Context) string{
	OK:               narrateOK,
	NotFound:         narrateNotFound,
	DeniedByPolicy:   narrateDenied,
	GateDeclined:     narrateGateDeclined,
	GateUnavailable:  narrateGateUnavailable,
	OverBudget:       narrateOverBudget,
	ScopeLimited:     narrateScopeLimited,
	NotARegularFile:  narrateNotRegular,
	IsADirectory:     narrateIsDir,
	PathRejected:     narratePathRejected,
	OutsideWriteRoot: narrateOutsideWriteRoot,
	SandboxViolation: narrateViolation,
	NonzeroExit:      narrateNonzeroExit,
	NoMatches:        narrateNoMatches,
	UnknownMedia:     narrateUnknownMedia,
	InvalidPattern:   narrateInvalidPattern,
	NotADirectory:    narrateNotDir,
	IOFailure:        narrateIOFailure,
	Aborted:          narrateAborted,
	TimedOut:         narrateTimedOut,
	RunnerFailure:    narrateRunnerFailure,
	InvalidArguments: narrateInvalidArguments,
	Unavailable:      narrateUnavailable,
	MissingProgram:   narrateMissingProgram,
}

// Narrate is the text a model reads about o: one short, factual paragraph
// saying what happened and what to do instead. It is deterministic, valid
// UTF-8 and bounded; it quotes model-supplied strings (escaped, cut), and
// it never contains file contents, command text (no field holds either) or
// c.HostRoot: fields are scrubbed to the mount path first, and whatever
// still spells the host root in the finished text is redacted.
func Narrate(o Outcome, c Context) string {
	if givenPath(o) && o.Path != givenMark {
		return narrateGiven(o, c)
	}
	s := c.scrubber()
	shown := c
	shown.WriteRoots, shown.Mode = scrubAll(s, c.WriteRoots), s.scrub(c.Mode)
	text := narrate(c.Scrub(o), shown)
	for range 3 {
		if !s.leaks(text) {
			return text
		}
		text = s.redact(text)
	}
	if s.leaks(text) {
		text = lastResort(o.Kind)
	}
	return text
}

// lastResort names the kind without any field. No known kind contains a
// "/", and a host root always starts with one, so this cannot show it.
func lastResort(k Kind) string {
	if _, ok := narrators[k]; !ok {
		k = "an unknown outcome"
	}
	return "The sandbox reported " + string(k) + "; details were withheld."
}

func narrate(o Outcome, c Context) string {
	if f, ok := narrators[o.Kind]; ok {
		return f(o, c)
	}
	return "The sandbox reported an outcome of an unknown kind (" + quote(string(o.Kind)) + "); treat the call as failed."
}

// AnnotationPrefix starts the note Annotate appends.
const AnnotationPrefix = "[ringfence] "

// Annotate returns stderr with the narration appended as a delimited note,
// for tools whose callers only show stderr. A success gets no note. The
// input slice is never modified.
func Annotate(stderr []byte, o Outcome, c Context) []byte {
	out := append([]byte(nil), stderr...)
	if o.Kind == OK {
		return out
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	note := strings.ReplaceAll(Narrate(o, c), "\n", " ")
	out = append(out, '\n')
	out = append(out, AnnotationPrefix...)
	out = append(out, note...)
	return append(out, '\n')
}
