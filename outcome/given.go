package outcome

import "strings"

// A path-rejected outcome's Path is the model's own argument, refused
// before anything was done: it is shown as the model gave it, never
// scrubbed. Rewriting it did two wrong things (issue 18): the model that
// gave a host path ("/home/alice/acme/go.mod") was told that
// "/workspace/go.mod" is absolute — a path it never wrote, refused for a
// reason that does not fit — and the rewriting answered whether a guessed
// path was the host root (a guess that is the root came back as
// /workspace, any other guess came back as written). Shown as given, the
// refusal says nothing the model did not write. Every other field, and
// every other kind's Path (built by ringfence from a resolved path), is
// still scrubbed.

// givenPath reports whether o.Path is the model's own refused argument.
func givenPath(o Outcome) bool { return o.Kind == PathRejected }

// givenMark stands in for the given path while the rest of the sentence
// is checked for the host root; it cannot be a host root itself (no
// leading slash) and quote leaves it as it is.
const givenMark = "ringfence-given-path-7c1e"

// narrateGiven narrates o with its given path shown as written: the
// sentence is built and made safe around a placeholder, then the
// placeholder's quoted form is replaced by the quoted path.
func narrateGiven(o Outcome, c Context) string {
	given := o.Path
	o.Path = givenMark
	text := Narrate(o, c)
	return strings.Replace(text, quote(givenMark), quote(given), 1)
}
