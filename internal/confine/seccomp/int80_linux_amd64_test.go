package seccomp

import (
	"fmt"
	"os"
)

// int80Getpid calls i386 getpid (20) and checks the answer, so the control
// run shows the 32-bit entry really works on this kernel.
func int80Getpid() {
	if pid := int(int80(20)); pid != os.Getpid() {
		fmt.Printf("int80-getpid=%d\n", pid)
		os.Exit(3)
	}
}
