//go:build !linux

package seccomp

// SockFilter is one classic BPF instruction, laid out as Linux's struct
// sock_filter, so the builder and its tests run on any GOOS.
type SockFilter struct {
	Code uint16
	Jt   uint8
	Jf   uint8
	K    uint32
}
