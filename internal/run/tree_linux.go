package run

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/proctree"
)

// killTree stops every process of the tree rooted at p. It first freezes
// what it can find (SIGSTOP: a stopped process cannot fork), re-walking
// until the set stops growing, then SIGKILLs the group, every descendant
// found and finally the root. Descendants are found before the root dies
// because a dead parent's children are re-parented out of reach. Under a
// pid namespace SIGKILL of the root (the namespace's init) alone ends
// everything; the sweep is then belt and braces.
func killTree(p *proc, group bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return // only leftovers remain: killLeftovers and the cgroup census
	}
	var found []int
	for range 8 {
		ds := proctree.Descendants(p.pid)
		proctree.SignalAll(ds, syscall.SIGSTOP)
		if group {
			_ = syscall.Kill(-p.pid, syscall.SIGSTOP)
		}
		if len(ds) == len(found) {
			break
		}
		found = ds
	}
	if group {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	proctree.SignalAll(found, syscall.SIGKILL)
	_ = p.process.Signal(syscall.SIGKILL) // by pidfd: never a reused pid
}

// terminateTree sends the polite SIGTERM of a gentle stop (gentleTargets
// decides to whom). The root is held unreaped meanwhile, so no pid of the
// walk can have been reused.
func terminateTree(p *proc, rootIsRunner bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return
	}
	root := exeOf(p.pid)
	var tree []treeProc
	for _, pid := range proctree.Descendants(p.pid) {
		tree = append(tree, exeOf(pid))
	}
	runners := []fileID{exeOf(os.Getpid()).exe}
	if dev, ino, ok := initimage.Identity(); ok {
		runners = append(runners, fileID{dev: dev, ino: ino})
	}
	proctree.SignalAll(gentleTargets(root, tree, rootIsRunner, runners), syscall.SIGTERM)
}

// exeOf identifies the binary pid runs, by the file /proc/<pid>/exe
// leads to (device and inode, so a bind mount of it is the same file).
func exeOf(pid int) treeProc {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/"+strconv.Itoa(pid)+"/exe", &st); err != nil {
		return treeProc{pid: pid}
	}
	return treeProc{pid: pid, exe: fileID{dev: st.Dev, ino: st.Ino}, ok: true}
}

// killLeftovers ends what is left of the group once the root is reaped.
func killLeftovers(p *proc, group bool) {
	if group {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
}

// killMembers SIGKILLs every process a cgroup lists until it lists none
// (bounded): the one census a setsid'd, re-parented daemon cannot leave.
func killMembers(members func() []int) {
	self := os.Getpid()
	for range 200 {
		pids := slices.DeleteFunc(members(), func(pid int) bool { return pid == self })
		if len(pids) == 0 {
			return
		}
		proctree.SignalAll(pids, syscall.SIGKILL)
		time.Sleep(5 * time.Millisecond)
	}
}
