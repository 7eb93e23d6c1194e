package main

import (
	"strings"
	"testing"
)

// A record's text reaches the person's terminal in the plan (What, From,
// Risk, the diff). Every character that moves the cursor or reorders
// what is shown must come out as '?': the C0/C1 controls and DEL, and
// every Unicode bidi control (embeddings RLE/LRE/PDF, overrides
// RLO/LRO, isolates LRI/RLI/FSI/PDI, the marks LRM/RLM/ALM) and the line
// and paragraph separators, so a path cannot be displayed as another.
func TestTermSafeNeutralisesEveryControl(t *testing.T) {
	for _, r := range []rune{0x00, 0x07, 0x0a, 0x0d, 0x1b, 0x7f, 0x85, 0x9b,
		0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x2066, 0x2067, 0x2068, 0x2069} {
		in := "src/" + string(r) + "gen"
		if got := termSafe(in); got != "src/?gen" {
			t.Errorf("U+%04X: termSafe(%q) = %q, want %q", r, in, got, "src/?gen")
		}
	}
	// Control: ordinary text, non-ASCII letters included, is untouched.
	for _, s := range []string{"write at src/gen", "read at ~/données", "host pkg.example:443", "日本/文書"} {
		if got := termSafe(s); got != s {
			t.Errorf("termSafe(%q) = %q, changed ordinary text", s, got)
		}
	}
	if strings.ContainsRune(termSafe("\u202bexe.txt"), 0x202b) {
		t.Fatal("RLE passed")
	}
}
