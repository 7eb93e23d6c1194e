package pathrule

import (
	"errors"
	"strings"
)

// Reason names why a model path was refused. The values are stable strings:
// they appear in tool results and in the audit trail.
type Reason string

// The reasons a model path is refused.
const (
	Empty     Reason = "empty"     // "" or only separators
	Dot       Reason = "dot"       // names the workspace itself
	Absolute  Reason = "absolute"  // starts with "/"
	Drive     Reason = "drive"     // "C:" and friends
	Home      Reason = "home"      // a leading "~"
	Backslash Reason = "backslash" // any "\"
	NUL       Reason = "nul"       // a NUL byte
	Escape    Reason = "escape"    // a ".." that climbs above the root
)

// ErrPathRefused is the sentinel every refusal wraps, so callers can test
// with errors.Is without caring about the reason.
var ErrPathRefused = errors.New("path refused")

// Error is a refused model path. It carries the input path and the reason;
// its message never says more than those two.
type Error struct {
	Path   string
	Reason Reason
}

func (e *Error) Error() string {
	return "path refused (" + string(e.Reason) + "): " + quote(e.Path)
}

// Unwrap lets errors.Is(err, ErrPathRefused) hold for every refusal.
func (e *Error) Unwrap() error { return ErrPathRefused }

// Clean checks a model path and returns it in canonical form: relative,
// slash-separated, without "." or empty segments and without any "..".
func Clean(path string) (string, error) {
	if reason, ok := refuse(path); ok {
		return "", &Error{Path: path, Reason: reason}
	}
	kept := make([]string, 0, strings.Count(path, "/")+1)
	for _, seg := range strings.Split(path, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(kept) == 0 {
				return "", &Error{Path: path, Reason: Escape}
			}
			kept = kept[:len(kept)-1]
		default:
			kept = append(kept, seg)
		}
	}
	if len(kept) == 0 {
		return "", &Error{Path: path, Reason: Dot}
	}
	out := strings.Join(kept, "/")
	// "./~" and "a/../C:x" only become a home or a drive once cleaned, and a
	// later layer must never be handed either.
	if reason, ok := refuse(out); ok {
		return "", &Error{Path: path, Reason: reason}
	}
	return out, nil
}

// refuse applies the checks that do not need the segments, in a fixed order
// so one input always gets one reason.
func refuse(path string) (Reason, bool) {
	switch {
	case strings.Trim(path, "/") == "" && !strings.HasPrefix(path, "/"):
		return Empty, true
	case strings.IndexByte(path, 0) >= 0:
		return NUL, true
	case strings.IndexByte(path, '\\') >= 0:
		return Backslash, true
	case strings.HasPrefix(path, "/"):
		return Absolute, true
	case strings.HasPrefix(path, "~"):
		return Home, true
	case isDrive(path):
		return Drive, true
	}
	return "", false
}

// isDrive reports a Windows drive prefix ("C:", "c:foo"). Such a path means
// something else on another platform, so it is refused rather than read as a
// file whose name happens to contain a colon.
func isDrive(path string) bool {
	return len(path) >= 2 && path[1] == ':' && isLetter(path[0])
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// quote shows a path without letting control characters through into logs.
func quote(s string) string {
	const max = 256
	if len(s) > max {
		s = s[:max] + "…"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
