package outcome

import (
	"iter"
	"strings"
)

// stderrText is stderr and its ASCII-lowered twin, byte for byte at the
// same offsets, so it is lowered once and not once per line and signature.
// Signatures are lowered the same way: case-insensitive means ASCII case.
type stderrText struct{ orig, lower string }

func newStderrText(b []byte) stderrText {
	low := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return stderrText{orig: string(b), lower: string(low)}
}

// lines yields each non-empty line without its line ending, with its
// lowered twin.
func (t stderrText) lines() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for start := 0; start < len(t.orig); {
			end := strings.IndexByte(t.orig[start:], '\n')
			next := start + end + 1
			if end < 0 {
				end, next = len(t.orig)-start, len(t.orig)
			}
			line, lower := trimCR(t.orig[start:start+end]), trimCR(t.lower[start:start+end])
			start = next
			if line != "" && !yield(line, lower) {
				return
			}
		}
	}
}

func trimCR(s string) string { return strings.TrimSuffix(s, "\r") }

func asciiLower(s string) string { return newStderrText([]byte(s)).lower }
