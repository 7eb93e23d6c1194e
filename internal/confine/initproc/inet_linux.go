package initproc

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// auditArch is AUDIT_ARCH_* per supported GOARCH, and the socket(2)
// number there.
var auditArch = map[string][2]uint32{
	"amd64": {0xc000003e, 41},  // AUDIT_ARCH_X86_64, __NR_socket
	"arm64": {0xc00000b7, 198}, // AUDIT_ARCH_AARCH64, __NR_socket
}

// InetFilter is a classic BPF program refusing socket(2) for every family
// but AF_UNIX with EACCES: where there is no network namespace to hold the
// command, this is what keeps it off the host's network (TCP, UDP, raw,
// SCTP, netlink alike). Other architectures' syscalls are left to the
// shared filter, which kills them.
func InetFilter() ([]unix.SockFilter, error) {
	a, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no socket filter for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	refuse := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EACCES)
	return []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, K: a[0], Jt: 0, Jf: 4},
		{Code: ld, K: offNr},
		{Code: jeq, K: a[1], Jt: 0, Jf: 2},
		{Code: ld, K: offArg0},
		{Code: jeq, K: unix.AF_UNIX, Jt: 0, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: refuse},
	}, nil
}
