package linux

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// Runs leave nothing behind: no descriptors in the caller, no mounts in
// its namespace, no files next to the workspace, nothing in the host's /tmp.
func TestNothingLeftBehind(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetLoopback)
	run(t, p, e.Root, "/bin/true") // warm up: lazily opened descriptors
	fds, mounts := countFDs(t), readFile(t, "/proc/self/mountinfo")
	rootEntries := countDir(t, e.Root+"/..")
	scratch := fmt.Sprintf("/tmp/ringfence-leftover-%d", os.Getpid())
	for range 30 {
		if res := run(t, p, e.Root, "/bin/sh", "-c", "echo x > \"$0\"; : > \"$1\"/work/y", scratch, e.Root); res.Code != 0 {
			t.Fatalf("exit %d: %s", res.Code, res.Stderr)
		}
	}
	if got := countFDs(t); got != fds {
		t.Errorf("descriptors: %d before, %d after", fds, got)
	}
	if leaked := ourMounts(mounts, readFile(t, "/proc/self/mountinfo"), filepath.Dir(e.Root), scratch); len(leaked) > 0 {
		t.Errorf("mounts changed in the caller's namespace:\n%s", strings.Join(leaked, "\n"))
	}
	if got := countDir(t, e.Root+"/.."); got != rootEntries {
		t.Errorf("entries beside the workspace: %d before, %d after", rootEntries, got)
	}
	if _, err := os.Stat(scratch); err == nil {
		t.Errorf("a write to the private /tmp reached the host's")
	}
}

// ourMounts are the mount lines that changed between before and after and
// name a path of this test's runs (the workspace's directory, the scratch
// path) or ringfence's own: other tests of the same CI run (podman, bwrap,
// this package's siblings) mount and unmount in the host namespace at the
// same time, and their transient mounts say nothing about a leak here.
func ourMounts(before, after string, paths ...string) []string {
	was := map[string]bool{}
	for _, l := range strings.Split(before, "\n") {
		was[l] = true
	}
	var out []string
	for _, l := range strings.Split(after, "\n") {
		if was[l] {
			continue
		}
		for _, p := range append(paths, "ringfence") {
			if strings.Contains(l, p) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

func countFDs(t *testing.T) int { return countDir(t, "/proc/self/fd") }

func countDir(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
