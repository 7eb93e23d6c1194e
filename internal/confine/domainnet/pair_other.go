//go:build !linux

package domainnet

import "syscall"

// handoffPair: the domains network needs Linux network namespaces.
func handoffPair() ([2]int, error) { return [2]int{}, syscall.ENOSYS }
