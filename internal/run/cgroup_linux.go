package run

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/proctree"
	"github.com/ringfence/ringfence/policy"
)

// cgroup is one run's group: a single v2 directory, or one directory per
// v1 hierarchy (memory and pids required, cpuacct when mounted). Groups are
// made under the supervisor's own group in each hierarchy, so the command
// stays inside whatever budget the supervisor itself was given.
type cgroup struct {
	v2   bool
	dirs map[string]string // v1: controller → dir; v2: "" → dir
	rels map[string]string // the same groups as /proc/PID/cgroup names them
	pid  int               // the placed root, for CPU when cpuacct is absent
	max  int               // the process limit, 0 for none
	fd   int               // v2: the group's directory for CLONE_INTO_CGROUP, or -1
}

var groupSeq atomic.Int64

// errNoCgroup wraps policy.ErrUnavailable: no usable hierarchy here.
var errNoCgroup = fmt.Errorf("%w: no writable cgroup with memory and pids controllers", policy.ErrUnavailable)

func cgroupRoot(o *Options) string {
	if o.CgroupRoot != "" {
		return o.CgroupRoot
	}
	return "/sys/fs/cgroup"
}

// newCgroup creates a group with the limits set, trying a delegated v2
// hierarchy first, then the v1 memory and pids controllers.
func newCgroup(root string, l policy.Limits) (*cgroup, error) {
	self, _ := os.ReadFile("/proc/self/cgroup")
	name := "ringfence-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(groupSeq.Add(1), 10)
	if g, err := newV2(root, string(self), name, l); err == nil {
		return g, nil
	}
	return newV1(root, string(self), name, l)
}

func newV2(root, self, name string, l policy.Limits) (*cgroup, error) {
	own, ok := ownCgroup(self, "")
	if !ok || !safeCgroupPath(own) {
		return nil, errNoCgroup
	}
	for _, mnt := range []string{root, filepath.Join(root, "unified")} {
		parent := filepath.Join(mnt, own)
		sub, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
		if err != nil || !hasAll(string(sub), "memory", "pids") {
			continue
		}
		g := &cgroup{v2: true, dirs: map[string]string{"": filepath.Join(parent, name)},
			rels: map[string]string{"": path.Join(own, name)}, fd: -1}
		return g, g.create(l)
	}
	return nil, errNoCgroup
}

func newV1(root, self, name string, l policy.Limits) (*cgroup, error) {
	g := &cgroup{dirs: map[string]string{}, rels: map[string]string{}, fd: -1}
	required, optional := v1Controllers(l)
	for _, ctrl := range append(slices.Clone(required), optional...) {
		own, ok := ownCgroup(self, ctrl)
		base := filepath.Join(root, ctrl)
		if _, err := os.Stat(filepath.Join(base, "cgroup.procs")); err != nil || !ok || !safeCgroupPath(own) {
			continue
		}
		g.dirs[ctrl] = filepath.Join(base, own, name)
		g.rels[ctrl] = path.Join(own, name)
	}
	for _, ctrl := range required {
		if g.dirs[ctrl] == "" {
			return nil, errNoCgroup
		}
	}
	return g, g.create(l)
}

func hasAll(list string, want ...string) bool {
	have := strings.Fields(list)
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// sweepStale removes empty groups left by a supervisor that died before
// its cleanup (SIGKILL). Only groups whose supervisor pid no longer exists
// are touched, and rmdir fails on a group that still has members: a stale
// group's survivors are left to the operator, never killed by a guess.
func sweepStale(parent string) {
	stale, _ := filepath.Glob(filepath.Join(parent, "ringfence-*-*"))
	for _, dir := range stale {
		pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(dir), "ringfence-"), "-")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() {
			if _, err := os.Stat("/proc/" + pid); errors.Is(err, os.ErrNotExist) {
				_ = os.Remove(dir)
			}
		}
	}
}

// create makes the directories and writes the limits; on any failure what
// was made is removed again.
func (g *cgroup) create(l policy.Limits) error {
	made := map[string]string{}
	for ctrl, dir := range g.dirs {
		sweepStale(filepath.Dir(dir))
		if err := os.Mkdir(dir, 0o700); err != nil {
			g.dirs = made
			g.remove()
			return err
		}
		made[ctrl] = dir
	}
	if err := g.setLimits(l); err != nil {
		g.remove()
		return err
	}
	return nil
}

func (g *cgroup) setLimits(l policy.Limits) error {
	if l.MemoryBytes > 0 {
		mem := strconv.FormatInt(l.MemoryBytes, 10)
		if g.v2 {
			// memory.swap.max exists only with swap accounting.
			_ = g.write("", "memory.swap.max", "0")
			return errors.Join(g.write("", "memory.max", mem), g.pidsMax(l))
		}
		if err := g.write("memory", "memory.limit_in_bytes", mem); err != nil {
			return err
		}
		// memsw only exists with swap accounting; without it swap is not
		// charged at all, so the limit holds for RAM only (a known gap).
		if _, err := os.Stat(filepath.Join(g.dirs["memory"], "memory.memsw.limit_in_bytes")); err == nil {
			if err := g.write("memory", "memory.memsw.limit_in_bytes", mem); err != nil {
				return err
			}
		}
	}
	return g.pidsMax(l)
}

// visitHeadroom is how far above the real limit pids.max stands while the
// supervisor's forking thread visits a v1 group (see enter): the thread
// itself, and any runtime thread the Go scheduler clones from it meanwhile
// (leave moves them all out). place lowers it to the real limit once the
// child is inside and our threads are gone.
const visitHeadroom = 16

// pidsMax sets the process limit, with visitHeadroom under v1.
func (g *cgroup) pidsMax(l policy.Limits) error {
	if l.Processes <= 0 {
		return nil
	}
	g.max = l.Processes
	n := l.Processes
	if !g.v2 {
		n += visitHeadroom
	}
	return g.write(g.ctrl("pids"), "pids.max", strconv.Itoa(n))
}

// ctrl maps a v1 controller name to the key of its directory.
func (g *cgroup) ctrl(name string) string {
	if g.v2 {
		return ""
	}
	return name
}

func (g *cgroup) write(ctrl, file, value string) error {
	f, err := os.OpenFile(filepath.Join(g.dirs[ctrl], file), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	return errors.Join(err, f.Close())
}

func (g *cgroup) read(ctrl, file string) string {
	dir, ok := g.dirs[ctrl]
	if !ok {
		return ""
	}
	b, _ := os.ReadFile(filepath.Join(dir, file))
	return string(b)
}

func (g *cgroup) num(ctrl, file string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSpace(g.read(ctrl, file)), 10, 64)
	return n
}

// enter moves the calling thread — the supervisor's forking thread —
// into the v1 group just before it forks, so the child is born inside it:
// nothing the command does, not even its first fork, happens outside its
// limits, and the child never has to be moved. (v1 allows moving one
// thread; memory is charged to the process's mm owner, so the visiting
// thread charges nothing.) Under v2 the child is cloned straight into the
// group instead (CLONE_INTO_CGROUP, see attr).
//
// The thread names itself "0", not by its id: the kernel moves the caller
// without the global cgroup_threadgroup_rwsem, whose write side waits for
// an RCU grace period — 5–20 ms a move on the shared test host, which is
// what writing a pid to cgroup.procs (or a tid to tasks) costs every time.
// Moving itself there and back costs ≈0.05 ms.
func (g *cgroup) enter() error {
	if g.v2 {
		return nil
	}
	for ctrl := range g.dirs {
		if err := g.write(ctrl, "tasks", "0"); err != nil {
			g.leave()
			return err
		}
	}
	return nil
}

// leave moves the calling thread back to the supervisor's own groups —
// and with it every other thread of ours the group holds: while the
// forking thread visited, the Go runtime may have cloned a new OS thread
// from it, which inherits the group. Left there, such a thread would put
// our own pid in the group's census, and ending the command's tree would
// SIGKILL the supervisor (seen with concurrent runs).
func (g *cgroup) leave() {
	if g.v2 {
		return
	}
	for _, dir := range g.dirs {
		writeTask(filepath.Join(filepath.Dir(dir), "tasks"), "0")
	}
	g.evictOwnThreads()
}

// evictOwnThreads moves every thread of this process out of the group,
// repeating while any is found: a stray thread may itself have cloned
// another after the list was read.
func (g *cgroup) evictOwnThreads() {
	if g.v2 {
		return
	}
	for range 20 {
		found := false
		for ctrl, dir := range g.dirs {
			back := filepath.Join(filepath.Dir(dir), "tasks")
			for _, t := range ownThreadsIn(g.read(ctrl, "tasks")) {
				found = true
				writeTask(back, strconv.Itoa(t))
			}
		}
		if !found {
			return
		}
	}
}

// ownThreadsIn filters a v1 tasks list down to this process's threads.
func ownThreadsIn(tasks string) []int {
	var out []int
	for _, t := range proctree.ParsePids(tasks) {
		if _, err := os.Stat("/proc/self/task/" + strconv.Itoa(t)); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// writeTask moves the thread tid ("0": the calling one) to tasksFile's group.
func writeTask(tasksFile string, tid string) {
	f, err := os.OpenFile(tasksFile, os.O_WRONLY, 0)
	if err == nil {
		_, _ = f.WriteString(tid)
		_ = f.Close()
	}
}

// attr asks for the child to be cloned into a v2 group.
func (g *cgroup) attr(a *syscall.SysProcAttr) {
	if !g.v2 {
		return
	}
	fd, err := unix.Open(g.dirs[""], unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		g.fd, a.UseCgroupFD, a.CgroupFD = fd, true, fd
	}
}

// place makes sure pid is in the group in every hierarchy and, under v1,
// drops pids.max to the real limit. A child born inside (enter, or
// CLONE_INTO_CGROUP) is only checked, from /proc: writing it to
// cgroup.procs again would be a move of a process already there, which
// still waits for the kernel's RCU grace period (see enter). Where it is
// not inside — enter failed, or a kernel ignored CLONE_INTO_CGROUP — it is
// moved.
func (g *cgroup) place(pid int) error {
	g.pid = pid
	if g.fd >= 0 {
		_ = unix.Close(g.fd)
		g.fd = -1
	}
	if g.max > 0 && !g.v2 {
		if err := g.write("pids", "pids.max", strconv.Itoa(g.max)); err != nil {
			return err
		}
	}
	now, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil && errors.Is(err, os.ErrNotExist) {
		return syscall.ESRCH
	}
	for ctrl, rel := range g.rels {
		if at, ok := ownCgroup(string(now), ctrl); ok && at == rel {
			continue
		}
		if err := g.write(ctrl, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// sample reads the group's counters.
func (g *cgroup) sample() sample {
	if g.v2 {
		return sample{
			MemoryBytes: g.num("", "memory.current"),
			PeakMemory:  g.num("", "memory.peak"),
			Processes:   int(g.num("", "pids.current")),
			CPU:         time.Duration(keyed(g.read("", "cpu.stat"), "usage_usec")) * time.Microsecond,
			OOMKills:    keyed(g.read("", "memory.events"), "oom_kill"),
			ForkRefused: keyed(g.read("", "pids.events"), "max"),
		}
	}
	s := sample{
		MemoryBytes: g.num("memory", "memory.usage_in_bytes"),
		PeakMemory:  g.num("memory", "memory.max_usage_in_bytes"),
		Processes:   int(g.num("pids", "pids.current")),
		CPU:         time.Duration(g.num("cpuacct", "cpuacct.usage")),
		OOMKills:    keyed(g.read("memory", "memory.oom_control"), "oom_kill"),
		ForkRefused: keyed(g.read("pids", "pids.events"), "max"),
	}
	// A group without memory or cpuacct (see v1Controllers) still reports
	// what the tree used, sampled from /proc as monitor mode does; nothing
	// is enforced from these samples (no such limit was asked for).
	if g.dirs["cpuacct"] == "" || g.dirs["memory"] == "" {
		m := (&monitor{pid: g.pid}).sample()
		if g.dirs["cpuacct"] == "" {
			s.CPU = m.CPU
		}
		if g.dirs["memory"] == "" {
			s.MemoryBytes = m.MemoryBytes
		}
	}
	return s
}

// members lists the processes in the group.
func (g *cgroup) members() []int {
	return proctree.ParsePids(g.read(g.ctrl("pids"), "cgroup.procs"))
}

// remove deletes the directories, retrying briefly while the kernel
// finishes tearing down the last members.
func (g *cgroup) remove() {
	g.evictOwnThreads()
	for _, dir := range g.dirs {
		for i := 0; i < 200; i++ {
			err := os.Remove(dir)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			if i%20 == 19 { // still busy: a straggler forked or re-entered
				g.evictOwnThreads()
				killMembers(g.members)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
