//go:build !linux

package procsandbox

import "syscall"

// killTree ends the process group: without /proc a descendant that called
// setsid is not found (see the package's known gaps).
func killTree(pid int) {
	killGroup(pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }
