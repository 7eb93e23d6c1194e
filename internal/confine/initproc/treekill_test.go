package initproc

import (
	"slices"
	"testing"
)

func TestTreeBelow(t *testing.T) {
	tree := map[int][]int{10: {11, 12}, 11: {13}, 12: {14, 10}, 13: {1, 15}, 15: {11}, 99: {100}}
	got := treeBelow(10, func(p int) []int { return tree[p] })
	slices.Sort(got)
	if want := []int{11, 12, 13, 14, 15}; !slices.Equal(got, want) {
		t.Fatalf("treeBelow = %v, want %v (a cycle or pid 1 walked?)", got, want)
	}
	if got := treeBelow(7, func(int) []int { return nil }); len(got) != 0 {
		t.Fatalf("a leaf: %v", got)
	}
}
