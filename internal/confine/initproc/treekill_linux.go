package initproc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// killTree ends the process pid leads and everything it started that is
// still below it — also what left its group (setsid), which kill(-pid)
// misses: a command stopped for its timeout, or by a client that went
// away, must not leave a detached child running in the session. What the
// process let go before (reparented to the init when its parent ended)
// is no longer below it and lives on, as background processes of a
// session do. The tree is frozen first (SIGSTOP: a stopped process
// cannot fork), walked until no new process appears, then killed; a
// killed parent's children would otherwise be reparented to the init and
// lost to the walk.
func killTree(pid int) {
	if !ownProc() {
		// A /proc of another pid namespace (the container's, where a
		// fresh one was refused) would name other processes: the group
		// alone, as before.
		killGroup(pid, unix.SIGKILL)
		return
	}
	killGroup(pid, unix.SIGSTOP)
	seen := map[int]bool{}
	for range 16 {
		grew := false
		for _, d := range treeBelow(pid, procChildren) {
			if !seen[d] {
				seen[d], grew = true, true
				_ = unix.Kill(d, unix.SIGSTOP)
			}
		}
		if !grew {
			break
		}
	}
	killGroup(pid, unix.SIGKILL)
	for d := range seen {
		_ = unix.Kill(d, unix.SIGKILL)
	}
}

func killGroup(pid int, sig syscall.Signal) {
	if unix.Kill(-pid, sig) != nil {
		_ = unix.Kill(pid, sig)
	}
}

// ownProc: /proc is this pid namespace's own (its "self" is our pid).
func ownProc() bool {
	self, err := os.Readlink("/proc/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
}

// procChildren lists pid's children from every thread's children file.
func procChildren(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(w); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
