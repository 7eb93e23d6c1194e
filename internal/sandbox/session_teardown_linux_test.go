//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// teardownLocal is a Local whose sessions use every resource a session
// can hold on the host: a cgroup (limits), a home layer (an overlay run
// work directory under stateDir), a pid, mount and network namespace.
func teardownLocal(t *testing.T, stateDir string) *Local {
	t.Helper()
	return newLocal(t, teardownConfig(hostDir(t), hostDir(t), stateDir))
}

func teardownConfig(root, home, stateDir string) Config {
	d := loopbackDefaults()
	d.Limits = policy.Limits{MemoryBytes: 1 << 30, Processes: 512}
	return Config{Root: root, Backend: "linux", Defaults: d, Home: HomeConfig{On: true, Dir: home, StateDir: stateDir}}
}

// sessionFootprint is what one session holds on the host.
type sessionFootprint struct {
	inits    []int    // the session inits (host pids), children of supervisor
	mountNS  []string // their mount namespaces
	cgroups  []string // cgroup directories named for supervisor
	runWorks []string // overlay run work directories
}

func footprint(t *testing.T, supervisor int, stateDir string) sessionFootprint {
	t.Helper()
	var f sessionFootprint
	for _, pid := range procsWith(func(pid int, cmdline string) bool {
		return strings.Contains(cmdline, "__confine") && ppid(pid) == supervisor
	}) {
		f.inits = append(f.inits, pid)
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid)); err == nil {
			f.mountNS = append(f.mountNS, ns)
		}
	}
	for _, own := range ownCgroupDirs() {
		got, _ := filepath.Glob(filepath.Join(own, "ringfence-"+strconv.Itoa(supervisor)+"-*"))
		f.cgroups = append(f.cgroups, got...)
	}
	_ = filepath.WalkDir(stateDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), "run-") {
			f.runWorks = append(f.runWorks, p)
			return filepath.SkipDir
		}
		return nil
	})
	return f
}

// gone waits until nothing of f is left on the host, naming what is.
func (f sessionFootprint) gone(t *testing.T, marker string) {
	t.Helper()
	var left []string
	deadline := time.Now().Add(5 * time.Second)
	for {
		left = nil
		for _, pid := range f.inits {
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
				left = append(left, fmt.Sprintf("init %d", pid))
			}
		}
		for _, pid := range procsWith(func(pid int, cmdline string) bool { return strings.Contains(cmdline, marker) }) {
			left = append(left, fmt.Sprintf("process %d", pid))
		}
		for _, ns := range f.mountNS {
			if pids := procsInMountNS(ns); len(pids) > 0 {
				left = append(left, fmt.Sprintf("mount namespace %s held by %v", ns, pids))
			}
		}
		for _, p := range append(append([]string(nil), f.cgroups...), f.runWorks...) {
			if _, err := os.Stat(p); err == nil {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Fatalf("left on the host: %v", left)
	}
}

// held checks the footprint is real (so that gone can fail).
func (f sessionFootprint) held(t *testing.T, marker string) {
	t.Helper()
	if len(f.inits) != 1 || len(f.mountNS) != 1 || len(f.runWorks) == 0 {
		t.Fatalf("footprint not seen: %+v", f)
	}
	if len(f.cgroups) == 0 && testenv.RequireAll() {
		t.Fatalf("no session cgroup seen: %+v", f)
	}
	if len(procsWith(func(_ int, c string) bool { return strings.Contains(c, marker) })) == 0 {
		t.Fatal("the background process is not running")
	}
}

func startBackground(t *testing.T, s *Session, marker string) {
	t.Helper()
	res := runIn(t, s, sh("sleep 1000"+marker+" >/dev/null 2>&1 &"))
	if res.Kind != KindSuccess {
		t.Fatalf("%s: %s", res.Kind, res.Stderr)
	}
}

func TestSessionCloseLeavesNothing(t *testing.T) {
	state := hostDir(t)
	s := openSession(t, teardownLocal(t, state), false)
	marker := "9" + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	startBackground(t, s, marker)
	f := footprint(t, os.Getpid(), state)
	f.held(t, marker)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f.gone(t, marker)
	if _, err := s.Start(context.Background(), Cmd{Argv: []string{"true"}}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("start after close: %v", err)
	}
	// A process still running at Close ends as aborted, never as "never ran".
	p := s.Processes()[0]
	if res, _ := p.Wait(context.Background()); res.Kind == KindRunnerFailure {
		t.Fatalf("finished process re-told as %s", res.Kind)
	}
}

func TestSessionIdleTimeout(t *testing.T) {
	state := hostDir(t)
	s := openSession(t, teardownLocal(t, state), false, SessionOptions{IdleTimeout: 300 * time.Millisecond})
	f := footprint(t, os.Getpid(), state)
	// A running process keeps the session: not idle while it runs.
	p, err := s.Start(context.Background(), Cmd{Argv: []string{"sleep", "0.8"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
		t.Fatal("closed while a process ran")
	case <-p.Done():
	}
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the idle session was not closed")
	}
	if !strings.Contains(s.Err().Error(), "idle") {
		t.Fatalf("ended because %v", s.Err())
	}
	f.gone(t, "no-such-marker-here")
}

// The supervisor is killed (SIGKILL: no cleanup runs). Every process and
// the mount namespace end at once (the init's parent-death signal; as
// pid 1 its death ends its namespace); the empty cgroup and the overlay
// work directory, which only a live process could remove, are swept by
// the next start. Control: the same footprint is seen while it lives.
func TestSessionSupervisorKilled(t *testing.T) {
	if os.Getenv("RF_SESSION_CHILD") != "" {
		sessionChild()
		return
	}
	state, root, home := hostDir(t), hostDir(t), hostDir(t)
	marker := "8" + strconv.Itoa(int(time.Now().UnixNano()%1e6))
	cmd, tmp := startSupervisor(t, "TestSessionSupervisorKilled", "RF_SESSION_CHILD="+state+":"+root+":"+home, "RF_SESSION_MARK="+marker)
	f := footprint(t, cmd.Process.Pid, state)
	f.held(t, marker)
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("control: the supervisor's temp dir %s is not there while it lives: %v", tmp, err)
	}
	// (Once it is killed any ringfence that starts may sweep the temp dir,
	// other tests' included; what must hold is that it is gone once ours
	// has started.)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	procsOnly := f
	procsOnly.cgroups, procsOnly.runWorks = nil, nil
	procsOnly.gone(t, marker)
	// The next start (same workspace and home layer) sweeps what a killed
	// supervisor could not remove: its cgroup, its overlay work directory
	// and its private temp dir.
	l := newLocal(t, teardownConfig(root, home, state))
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed supervisor's temp dir %s was not swept: %v", tmp, err)
	}
	s, err := l.Session(context.Background(), policy.Request{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	f.inits, f.mountNS = nil, nil
	f.gone(t, marker)
}

// sessionChild is the supervisor TestSessionSupervisorKilled kills.
func sessionChild() {
	dirs, marker := strings.Split(os.Getenv("RF_SESSION_CHILD"), ":"), os.Getenv("RF_SESSION_MARK")
	if len(dirs) != 3 {
		fmt.Println("error: bad RF_SESSION_CHILD")
		return
	}
	l, err := New(teardownConfig(dirs[1], dirs[2], dirs[0]))
	if err != nil {
		fmt.Println("skip:", err)
		return
	}
	s, err := l.Session(context.Background(), policy.Request{})
	if err != nil {
		fmt.Println("skip:", err)
		return
	}
	p, err := s.Start(context.Background(), Cmd{Argv: []string{"/bin/sh", "-c", "sleep 1000" + marker + " >/dev/null 2>&1 &"}})
	if err == nil {
		_, err = p.Wait(context.Background())
	}
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("ready", l.tempDir)
	time.Sleep(time.Minute)
}

func procsWith(match func(pid int, cmdline string) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && match(pid, strings.ReplaceAll(string(b), "\x00", " ")) {
			out = append(out, pid)
		}
	}
	return out
}

func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return -1
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func procsInMountNS(ns string) []int {
	return procsWith(func(pid int, _ string) bool {
		got, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
		return err == nil && got == ns
	})
}

// ownCgroupDirs are this process's cgroup directories, in every
// hierarchy (v2, and each v1 controller's), where a run's group is made.
func ownCgroupDirs() []string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		ctrls := strings.Split(f[1], ",")
		if f[1] == "" {
			ctrls = []string{"", "unified"}
		}
		for _, c := range ctrls {
			if dir := filepath.Join("/sys/fs/cgroup", c, f[2]); !strings.Contains(c, "=") {
				if _, err := os.Stat(dir); err == nil {
					out = append(out, dir)
				}
			}
		}
	}
	return out
}
