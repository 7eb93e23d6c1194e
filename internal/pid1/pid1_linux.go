package pid1

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// Is reports whether this process is pid 1 of its pid namespace.
func Is() bool { return os.Getpid() == 1 }

// Main re-executes this binary as pid 1's only child, reaps everything and
// returns the exit status pid 1 should exit with (see the package doc).
func Main() int {
	// Before the child exists, so a stop that comes at once is not lost.
	sigs := make(chan os.Signal, 32)
	signal.Notify(sigs)
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ringfence: as pid 1, cannot find its own binary:", err)
		return 125
	}
	cmd := &exec.Cmd{Path: exe, Args: os.Args, Env: os.Environ(),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "ringfence: as pid 1, cannot start itself:", err)
		return 125
	}
	child := cmd.Process.Pid
	exited := make(chan int, 1)
	go func() { exited <- reapUntil(child) }()
	for {
		select {
		case code := <-exited:
			return code
		case s := <-sigs:
			if n, ok := s.(syscall.Signal); ok && passed(n) {
				_ = syscall.Kill(child, n)
			}
		}
	}
}

// reapUntil reaps every child of pid 1 — orphans of the container too —
// until child has ended, and returns the status pid 1 should exit with.
func reapUntil(child int) int {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 125 // ECHILD: the child is gone without a status
		}
		if pid == child {
			return exitCode(ws)
		}
	}
}
