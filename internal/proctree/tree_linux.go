package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// MaxTree bounds a tree walk so a fork bomb cannot make the walk unbounded.
const MaxTree = 1 << 15

// Children lists the direct children of pid from
// /proc/<pid>/task/*/children (every thread can be a parent).
func Children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err == nil {
			out = append(out, ParsePids(string(b))...)
		}
	}
	return out
}

// Descendants walks the tree under pid (pid excluded), breadth first.
func Descendants(pid int) []int {
	seen := map[int]bool{pid: true}
	queue, out := []int{pid}, []int(nil)
	for len(queue) > 0 && len(out) < MaxTree {
		for _, c := range Children(queue[0]) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
		queue = queue[1:]
	}
	return out
}

// SignalAll sends sig to each pid, ignoring errors (a pid that is gone
// needs no signal).
func SignalAll(pids []int, sig syscall.Signal) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, sig)
	}
}
