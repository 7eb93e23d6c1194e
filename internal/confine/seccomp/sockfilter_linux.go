package seccomp

import "golang.org/x/sys/unix"

// SockFilter is one classic BPF instruction; on Linux it is unix.SockFilter.
type SockFilter = unix.SockFilter
