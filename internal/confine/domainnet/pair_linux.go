package domainnet

import "syscall"

// handoffPair is the socket pair over which the sandbox's pid 1 hands
// connections to the supervisor: SEQPACKET (one message per connection),
// close-on-exec.
func handoffPair() ([2]int, error) {
	return syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
}
