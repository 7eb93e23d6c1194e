package landlock

import (
	"syscall"

	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// sysProcAttr starts the init in a session of its own. Its parent-death
// signal is a catchable one: with no pid namespace, the kernel will not end
// the command's tree when the init dies, so the init must do it itself when
// ringfence dies — even by SIGKILL (initproc.ParentDeathSignal).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: initproc.ParentDeathSignal}
}
