package procsandbox

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// killTree stops every process still attached below pid — setsid'd ones
// too, which leave the group but not the parentage — then the group. Each
// found process is frozen first, so none can fork past the census.
func killTree(pid int) {
	syscall.Kill(pid, syscall.SIGSTOP)
	seen := map[int]bool{}
	for range 8 {
		fresh := false
		for _, p := range descendants(pid) {
			if !seen[p] {
				seen[p], fresh = true, true
				syscall.Kill(p, syscall.SIGSTOP)
			}
		}
		if !fresh {
			break
		}
	}
	for p := range seen {
		syscall.Kill(p, syscall.SIGKILL)
	}
	killGroup(pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }

// descendants walks /proc/PID/task/*/children from pid down.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children(p) {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func children(pid int) []int {
	base := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(base)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(base + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
