package proctree

import (
	"strconv"
	"strings"
)

// ParsePids parses a whitespace-separated list of pids (the format of
// /proc/<pid>/task/<tid>/children and cgroup.procs), skipping junk.
func ParsePids(s string) []int {
	var pids []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil && n > 0 {
			pids = append(pids, n)
		}
	}
	return pids
}
