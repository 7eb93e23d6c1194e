package seccomp

// int80 makes syscall nr through the i386 entry point (`int $0x80`), as a
// 32-bit program, or an attacker dodging a number-only filter, would. It
// exists for the victim tests, which must show that such a call is killed.
func int80(nr uintptr) uintptr
