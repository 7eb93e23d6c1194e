package outcome

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The text around a tool's content: what a model reads besides the
// narration of a non-OK outcome. The tools assemble content (file lines,
// listings, command output) and take every sentence from here, so all
// model-facing wording lives in this package under golden tests
// (testdata/tooltext). Arguments are model paths and counts; nothing here
// scrubs, the tools scrub the finished text.

// AxisExec is the Axis of a denied-by-policy outcome for a command the
// classification refuses outright (narrated by narrateDenied).
const AxisExec = "exec"

// narrateExecDenied is the refusal of a command by classification: final,
// with no approval to ask for.
func narrateExecDenied(o Outcome) string {
	text := "The sandbox policy refuses to run " + QuoteShort(o.Program)
	if o.Detail != "" {
		text += " (" + o.Detail + ")"
	}
	return text + "; it was not run, and this refusal cannot be approved from here. " +
		"Do not retry it or a variant of it; do the task another way, or ask the user to run it themselves."
}

// QuoteShort quotes a model-supplied name for a sentence: bounded to 200
// bytes, with quotes and control characters escaped (Go syntax).
func QuoteShort(s string) string {
	const max = 200
	if len(s) > max {
		s = cutUTF8(s, max) + "…"
	}
	return strconv.Quote(s)
}

// Plural is "1 byte", "2 bytes".
func Plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(n, 10) + " " + many
}

// JoinText puts b after a as a new paragraph; an empty side adds nothing.
func JoinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return strings.TrimRight(a, "\n") + "\n\n" + b
}

// CutMiddle keeps the head and the tail of s within max bytes, saying how
// much was left out: the end of a build log matters as much as its start.
func CutMiddle(s string, max int) (string, int) {
	if len(s) <= max {
		return s, 0
	}
	head := cutUTF8(s, max/2)
	tail := s[len(s)-max/2:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted := len(s) - len(head) - len(tail)
	return head + "\n[… " + strconv.Itoa(omitted) + " bytes omitted …]\n" + tail, omitted
}

// ApprovalNote is what the model reads of the note a person gave with an
// approval.
func ApprovalNote(note string) string {
	return "The person who approved this call left a note for you: " + strconv.Quote(note)
}

// Written is write_file's and edit_file's answer.
func Written(path string, bytes int64, created bool, replacements int) string {
	switch {
	case replacements > 0:
		return "Edited " + path + ": " + Plural(int64(replacements), "replacement", "replacements") +
			"; the file is now " + Plural(bytes, "byte", "bytes") + "."
	case created:
		return "Created " + path + " (" + Plural(bytes, "byte", "bytes") + ")."
	}
	return "Wrote " + path + " (" + Plural(bytes, "byte", "bytes") + ")."
}

// BinaryFile is read_file's answer for a file it does not show as text.
func BinaryFile(path string, size int64) string {
	return path + " is a binary file (" + Plural(size, "byte", "bytes") + "); it is not shown as text. " +
		"Use read_media for an image or a PDF."
}

// Empty is the answer for an empty file or directory.
func Empty(path string) string { return path + " is empty." }

// MoreLines follows a page of read_file that is not the file's end.
func MoreLines(first, shown int) string {
	next := first + shown
	return "[Lines " + strconv.Itoa(first) + "–" + strconv.Itoa(next-1) +
		" shown; the file goes on. Call again with offset " + strconv.Itoa(next) + " to read more.]"
}

// nextPage tells the model how to go on: the cursor, quoted as JSON.
func nextPage(cursor string) string {
	return "; more follow: call again with the same arguments and cursor " + strconv.Quote(cursor) + " for the next page."
}

// GlobPage follows a page of glob_files results that more follow.
func GlobPage(shown, total int, cursor string) string {
	return Plural(int64(shown), "path", "paths") + " on this page, of " +
		Plural(int64(total), "matching path", "matching paths") + nextPage(cursor)
}

// GrepSummary follows grep_files' lines: the counts, and how to go on when
// a cursor is given (total < 0: the total is not known).
func GrepSummary(matches, files, total int, cursor string) string {
	summary := Plural(int64(matches), "matching line", "matching lines") + " in " + Plural(int64(files), "file", "files")
	switch {
	case cursor == "":
		summary += "."
	case total >= 0:
		summary += " on this page, of " + Plural(int64(total), "matching line", "matching lines") + nextPage(cursor)
	default:
		summary += " on this page" + nextPage(cursor)
	}
	return summary
}
