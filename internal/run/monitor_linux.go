package run

import (
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/proctree"
)

// limiter is how a run's resources are bounded and observed.
type limiter interface {
	attr(a *syscall.SysProcAttr) // adjust the child's attributes before fork
	enter() error                // on the forking thread, just before fork
	leave()                      // on the forking thread, just after
	place(pid int) error
	sample() sample
	members() []int // processes known to belong to the run (cgroup), or nil
	remove()
}

// monitor bounds a tree by sampling /proc. It cannot prevent the spike
// between two samples; it only ends the tree once over.
type monitor struct {
	pid int
	cpu time.Duration
}

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc.
const clockTicks = 100

var pageSize = int64(os.Getpagesize())

// place records the root and sets RLIMIT_CPU on it as a per-process
// backstop (inherited by what it forks from now on). RLIMIT_AS is not set:
// it bounds address space, not memory, and breaks runtimes that reserve
// large heaps they never touch. RLIMIT_NPROC is not set: it counts every
// process of the user, not of the tree, and root ignores it.
func (m *monitor) place(pid int) error {
	m.pid = pid
	if m.cpu > 0 {
		soft := uint64(m.cpu.Seconds()) + 2
		lim := unix.Rlimit{Cur: soft, Max: soft + 1}
		_ = unix.Prlimit(pid, unix.RLIMIT_CPU, &lim, nil)
	}
	return nil
}

// sample sums the live tree: resident memory, process count, CPU time
// (including children already reaped by a member of the tree).
func (m *monitor) sample() sample {
	var s sample
	var ticks int64
	for _, pid := range append([]int{m.pid}, proctree.Descendants(m.pid)...) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		st, ok := parseStat(string(b))
		if !ok {
			continue
		}
		s.Processes++
		s.MemoryBytes += st.rssPages * pageSize
		ticks += st.ticks
	}
	s.CPU = time.Duration(ticks) * time.Second / clockTicks
	return s
}

func (m *monitor) attr(*syscall.SysProcAttr) {}
func (m *monitor) enter() error              { return nil }
func (m *monitor) leave()                    {}
func (m *monitor) members() []int            { return nil }
func (m *monitor) remove()                   {}

// newLimiter picks how to bound this run: a cgroup (quota) when the host
// lets us make one, else sampling (monitor). A process-group run without
// limits still gets a cgroup when possible, for its census: it is the only
// way to find a daemon that called setsid and was re-parented away.
func newLimiter(o *Options, trackOnly bool) (limiter, Resources) {
	want := hasLimits(o.Limits)
	if !want && !trackOnly {
		return nil, ResourcesNone
	}
	if g, err := newCgroup(cgroupRoot(o), o.Limits); err == nil {
		return g, enforcement(want, ResourcesQuota)
	}
	if !want {
		return nil, ResourcesNone
	}
	return &monitor{cpu: o.Limits.CPUTime}, ResourcesMonitor
}

func enforcement(want bool, r Resources) Resources {
	if !want {
		return ResourcesNone
	}
	return r
}
