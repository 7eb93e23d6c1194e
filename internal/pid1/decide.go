package pid1

import "syscall"

// passed reports whether pid 1 passes signal s on to its child. SIGCHLD is
// its own (reaping); SIGURG and SIGPROF are the Go runtime's (preemption,
// profiling) and mean nothing to the child.
func passed(s syscall.Signal) bool {
	switch s {
	case syscall.SIGCHLD, syscall.SIGURG, syscall.SIGPROF:
		return false
	}
	return s > 0 && s < 65
}

// exitCode is pid 1's exit status for the child's wait status: its exit
// code, or 128+N when signal N ended it. Pid 1 cannot die of a signal it
// sends itself (the kernel ignores it), so the signal becomes the code, as
// a shell reports it.
func exitCode(ws syscall.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 125 // neither: never from a reaped child; ringfence's own failure code
}
