package outcome

import "strings"

// Violation is one refusal a backend reported while the command ran, kept
// as data: which backend, why (normalised across dialects), the path when
// the message named one, and a bounded one-line excerpt of the evidence.
type Violation struct {
	Backend string `json:"backend"`
	Reason  string `json:"reason"`
	Path    string `json:"path,omitempty"`
	// Target is the host or address a refused connection or lookup named
	// (reason network-denied), when the message named one.
	Target  string `json:"target,omitempty"`
	Snippet string `json:"snippet"`
	// Protection, filled by the caller that holds the policy, says why
	// Path is held read-only even inside a writable root ("protected name
	// .envrc", "git hook name pre-commit"); "" when it is not.
	Protection string `json:"protection,omitempty"`
}

// Violation reasons, normalised from each backend's own wording.
const (
	ReasonNotPermitted     = "operation-not-permitted" // EPERM
	ReasonPermissionDenied = "permission-denied"       // EACCES
	ReasonReadOnly         = "read-only-filesystem"    // EROFS
	ReasonSeccomp          = "seccomp"                 // killed by SIGSYS
	ReasonPolicyDenied     = "policy-denied"           // a dialect signature with no errno wording
	ReasonRunnerFailure    = "runner-failure"
)

// MaxViolations bounds how many violations one command records: a loop
// that hits a read-only file a million times is one fact, not a million.
const MaxViolations = 16

// violationOf builds the record for one stderr line that matched the
// selected backend's denial dialect.
func violationOf(backend, line string) Violation {
	return Violation{
		Backend: backend,
		Reason:  reasonOf(strings.ToLower(line)),
		Path:    pathOf(line),
		Snippet: oneLine(cutUTF8(line, maxSnippet)),
	}
}

func reasonOf(lower string) string {
	switch {
	case strings.Contains(lower, "read-only file system") || hasWord(lower, "erofs"):
		return ReasonReadOnly
	case strings.Contains(lower, "operation not permitted") || hasWord(lower, "eperm"):
		return ReasonNotPermitted
	case strings.Contains(lower, "permission denied") || hasWord(lower, "eacces"):
		return ReasonPermissionDenied
	}
	return ReasonPolicyDenied
}

// hasWord reports w in s with no letter or digit on either side, so
// "eperm" is found in "EPERM:" but not inside a longer word.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isAlnum(s[j-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// dedupe appends v unless an equal (reason, path) is already recorded or
// the list is full.
func dedupe(vs []Violation, v Violation) []Violation {
	if len(vs) >= MaxViolations {
		return vs
	}
	for _, old := range vs {
		if old.Reason == v.Reason && old.Path == v.Path && old.Target == v.Target &&
			(v.Path != "" || v.Target != "" || old.Snippet == v.Snippet) {
			return vs
		}
	}
	return append(vs, v)
}
