package conformance_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostState is what a run could leave behind on the host: processes
// below this one, mounts, ringfence temp dirs, ringfence cgroups, open
// descriptors.
type hostState struct {
	procs   []int
	mounts  string
	temps   []string
	cgroups []string
	fds     int
}

func snapshot(t *testing.T) hostState {
	t.Helper()
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	// Other test binaries on this host make ringfence temp dirs and
	// cgroups too: only ours count (the tests point TMPDIR at a private
	// directory, and cgroup names carry the supervisor's pid).
	temps, _ := filepath.Glob(filepath.Join(os.TempDir(), "ringfence-tmp-*"))
	fds, _ := os.ReadDir("/proc/self/fd")
	return hostState{procs: descendantsOf(os.Getpid()), mounts: string(mi), temps: temps, cgroups: ringfenceCgroups(), fds: len(fds)}
}

// diff says what after holds that before did not.
func (before hostState) diff(after hostState) string {
	var out []string
	if len(after.procs) > 0 {
		out = append(out, fmt.Sprintf("processes left: %v", after.procs))
	}
	if after.mounts != before.mounts {
		out = append(out, "mount table changed")
	}
	if extra := minus(after.temps, before.temps); len(extra) > 0 {
		out = append(out, fmt.Sprintf("temp dirs left: %v", extra))
	}
	if extra := minus(after.cgroups, before.cgroups); len(extra) > 0 {
		out = append(out, fmt.Sprintf("cgroups left: %v", extra))
	}
	if after.fds > before.fds {
		out = append(out, fmt.Sprintf("descriptors: %d before, %d after", before.fds, after.fds))
	}
	return strings.Join(out, "; ")
}

// assertNoLeaks waits a little for teardown, then fails on anything left.
func assertNoLeaks(t *testing.T, before hostState) {
	t.Helper()
	var d string
	for range 50 {
		if d = before.diff(snapshot(t)); d == "" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("left behind: %s", d)
}

func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

func ringfenceCgroups() []string {
	var out []string
	for _, root := range []string{"/sys/fs/cgroup/memory", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/unified"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if strings.HasPrefix(d.Name(), fmt.Sprintf("ringfence-%d-", os.Getpid())) {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}

// descendantsOf lists every live process below pid (zombies aside).
func descendantsOf(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, task := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", p, task.Name()))
			for _, f := range strings.Fields(string(b)) {
				c, _ := strconv.Atoi(f)
				if c > 0 && !zombie(c) {
					out = append(out, c)
				}
				queue = append(queue, c)
			}
		}
	}
	return out
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || len(s) < i+3 || s[i+2] == 'Z'
}
