package initproc

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// FamilyFilter is a classic BPF program refusing socket(2) for the given
// address families with EAFNOSUPPORT, as if the kernel had none. Used for
// AF_VSOCK under the domains network: vsock is not namespaced, so a
// network namespace with only lo does not keep a command from reaching
// the hypervisor's services (host CID 2) around the proxy. Other
// architectures' syscalls are left to the shared filter, which kills them.
func FamilyFilter(families ...uint32) ([]unix.SockFilter, error) {
	a, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no socket filter for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	n := uint8(len(families))
	prog := []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, K: a[0], Jt: 0, Jf: 3 + n},
		{Code: ld, K: offNr},
		{Code: jeq, K: a[1], Jt: 0, Jf: 1 + n},
		{Code: ld, K: offArg0},
	}
	for i, f := range families {
		// Match: jump over the remaining compares and the allow to refuse.
		prog = append(prog, unix.SockFilter{Code: jeq, K: f, Jt: n - uint8(i), Jf: 0})
	}
	return append(prog,
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: ret, K: uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EAFNOSUPPORT)},
	), nil
}
