package initproc

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ParentDeathSignal is the parent-death signal of an init that has no pid
// namespace of its own (the landlock backend). SIGKILL would end the init
// and leave the command's tree running, so the init catches this one and
// ends every descendant first. Nothing else in ringfence uses SIGPWR.
const ParentDeathSignal = syscall.SIGPWR

// watchParentDeath ends the whole tree below the init when its supervisor
// (pid parent) dies. Only needed outside a pid namespace: as pid 1, the
// init's death already ends everything in its namespace.
func watchParentDeath(parent int) {
	if os.Getpid() == 1 {
		return
	}
	died := make(chan os.Signal, 1)
	signal.Notify(died, ParentDeathSignal)
	go func() {
		<-died
		killDescendants()
		os.Exit(128 + int(ParentDeathSignal))
	}()
	// The parent-death signal is sent by the kernel from the moment of the
	// fork, but Go's runtime drops a SIGPWR nobody was notified of: a
	// supervisor that died before the Notify above is seen only as a
	// changed parent.
	if parentGone(parent, os.Getppid()) {
		died <- ParentDeathSignal
	}
}

// killDescendants SIGKILLs every process below this one until none is
// left (bounded: 200 rounds). The init is a child subreaper, so an orphan — a setsid'd daemon
// included — is re-parented to it and stays in reach.
func killDescendants() {
	for range 200 {
		pids := descendants(os.Getpid())
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		time.Sleep(time.Millisecond)
		reapAny() // the dead are listed as children until reaped
	}
}

// reapAny reaps every child that has ended, without waiting.
func reapAny() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if pid <= 0 || err != nil {
			return
		}
	}
}

// descendants lists the processes below pid, through each thread's
// children file.
func descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(p) + "/task")
		for _, t := range tasks {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/task/" + t.Name() + "/children")
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}
