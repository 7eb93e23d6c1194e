package pid1

import (
	"syscall"
	"testing"
)

func TestPassed(t *testing.T) {
	for s, want := range map[syscall.Signal]bool{
		syscall.SIGTERM: true, syscall.SIGINT: true, syscall.SIGHUP: true, syscall.SIGQUIT: true,
		syscall.SIGUSR1: true, syscall.SIGWINCH: true, syscall.Signal(34): true, // SIGRTMIN
		syscall.SIGCHLD: false, syscall.SIGURG: false, syscall.SIGPROF: false, 0: false, 65: false,
	} {
		if got := passed(s); got != want {
			t.Errorf("passed(%v) = %v, want %v", s, got, want)
		}
	}
}

func TestExitCode(t *testing.T) {
	// Wait statuses as the kernel encodes them: code<<8 for an exit, the
	// signal number in the low 7 bits for a kill.
	for _, c := range []struct {
		ws   syscall.WaitStatus
		want int
	}{
		{0, 0},
		{3 << 8, 3},
		{syscall.WaitStatus(syscall.SIGTERM), 143},
		{syscall.WaitStatus(syscall.SIGKILL), 137},
		{syscall.WaitStatus(syscall.SIGKILL) | 0x80, 137}, // core dumped flag
		{0x137f, 125}, // stopped: never a reaped child's status
	} {
		if got := exitCode(c.ws); got != c.want {
			t.Errorf("exitCode(%#x) = %d, want %d", int(c.ws), got, c.want)
		}
	}
}
