package proctree

import (
	"slices"
	"testing"
)

func TestParsePids(t *testing.T) {
	for in, want := range map[string][]int{
		"12 x 0 -3\n45 ":         {12, 45},
		"":                       nil,
		"7":                      {7},
		"1\t2\n3 ":               {1, 2, 3},
		"99999999999999999999 5": {5},
	} {
		if got := ParsePids(in); !slices.Equal(got, want) {
			t.Errorf("ParsePids(%q) = %v, want %v", in, got, want)
		}
	}
}

// Property: no panic on any text, and every pid is positive.
func FuzzParsePids(f *testing.F) {
	f.Add("12 x 0 -3\n45 ")
	f.Add("4:memory:/y 1 (sh) S")
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range ParsePids(s) {
			if p <= 0 {
				t.Fatalf("non-positive pid %d", p)
			}
		}
	})
}
