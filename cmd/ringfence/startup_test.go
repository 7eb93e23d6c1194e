package main

import (
	"slices"
	"testing"
)

// valueFlags, which decides at start-up which flags complete from a table,
// names exactly the keys of the tables built when the shell asks
// (TestCompletionOfValues checks the values end to end).
func TestValueFlagsAreTheTableKeys(t *testing.T) {
	for _, cmd := range []string{"run", "conformance", "mcp"} {
		var keys []string
		for k := range valueCompletions(cmd) {
			keys = append(keys, k)
		}
		want := slices.Clone(valueFlags)
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: table keys %v, valueFlags %v", cmd, keys, want)
		}
	}
}
