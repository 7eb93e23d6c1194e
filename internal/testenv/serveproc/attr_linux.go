package serveproc

import "syscall"

// dieWithParent: the kernel kills the server when the caller dies, so a
// crashed test or driver leaves no server behind.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
