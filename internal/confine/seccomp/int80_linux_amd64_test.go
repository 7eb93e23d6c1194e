package seccomp

import (
	"fmt"
	"os"
	"runtime/debug"
)

// int80Getpid calls i386 getpid (20) and checks the answer, so the control
// run shows the 32-bit entry really works on this kernel. Where the entry
// faults (a general protection fault, as in a PVM guest although the kernel
// has IA32 emulation), the Go runtime would turn the SIGSEGV into a fatal
// throw (exit 2) that the parent cannot tell from other deaths: the fault
// is recovered and said as int80-fault=true instead.
func int80Getpid() {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			fmt.Printf("int80-fault=true\n")
			os.Exit(4)
		}
	}()
	if pid := int(int80(20)); pid != os.Getpid() {
		fmt.Printf("int80-getpid=%d\n", pid)
		os.Exit(3)
	}
}
