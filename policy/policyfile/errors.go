package policyfile

import (
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/policy"
)

// Error is a policy file that cannot be used, with where: the file, the
// line (1-based; 0 when unknown) and the key path ("entry[2].access").
// Every Error is a policy.ErrPolicy.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
	Err  error // the underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("policy file")
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(clip(e.Key) + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap makes every Error a policy.ErrPolicy and keeps its cause reachable.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{policy.ErrPolicy, e.Err}
	}
	return []error{policy.ErrPolicy}
}

// clip shortens a key or name for a message and quotes it.
func clip(s string) string {
	if len(s) > 96 {
		s = s[:96] + "…"
	}
	return strconv.Quote(s)
}
