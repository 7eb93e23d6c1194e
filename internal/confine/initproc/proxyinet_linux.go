package initproc

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// offArg1 and offArg2 are socket(2)'s type and protocol in seccomp_data
// (low words: the kernel reads both as int).
const (
	offArg1 = offArg0 + 8
	offArg2 = offArg0 + 16
)

// sockTypeMask keeps the socket type, without SOCK_NONBLOCK and
// SOCK_CLOEXEC (the kernel's SOCK_TYPE_MASK).
const sockTypeMask = 0xf

// ProxyInetFilter is a classic BPF program for a sandbox whose only way
// out is the policy proxy on the host's loopback (Seccomp.ProxyPorts): it
// allows socket(2) for AF_UNIX, and for AF_INET and AF_INET6 only a
// SOCK_STREAM with protocol 0 or IPPROTO_TCP; everything else fails with
// EACCES — UDP (QUIC, DNS straight out), raw and packet sockets, ICMP,
// SCTP, and MPTCP (IPPROTO_MPTCP is a SOCK_STREAM that Landlock's TCP
// rules do not cover), netlink, vsock and every other family. TCP
// connects are then the supervisor's to decide (seccomp.ProxyOnly).
// Other architectures' syscalls are left to the shared filter, which
// kills them.
func ProxyInetFilter() ([]unix.SockFilter, error) {
	a, ok := auditArch[runtime.GOARCH]
	if !ok {
		return nil, fmt.Errorf("no socket filter for %s", runtime.GOARCH)
	}
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		and  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		allw = unix.SECCOMP_RET_ALLOW
	)
	refuse := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EACCES)
	return []unix.SockFilter{
		/* 0 */ {Code: ld, K: offArch},
		/* 1 */ {Code: jeq, K: a[0], Jt: 0, Jf: 13}, // foreign: allow (the shared filter kills)
		/* 2 */ {Code: ld, K: offNr},
		/* 3 */ {Code: jeq, K: a[1], Jt: 0, Jf: 11}, // not socket: allow
		/* 4 */ {Code: ld, K: offArg0},
		/* 5 */ {Code: jeq, K: unix.AF_UNIX, Jt: 9, Jf: 0}, // allow
		/* 6 */ {Code: jeq, K: unix.AF_INET, Jt: 1, Jf: 0}, // 8
		/* 7 */ {Code: jeq, K: unix.AF_INET6, Jt: 0, Jf: 6}, // else refuse
		/* 8 */ {Code: ld, K: offArg1},
		/* 9 */ {Code: and, K: sockTypeMask},
		/* 10 */ {Code: jeq, K: unix.SOCK_STREAM, Jt: 0, Jf: 3}, // else refuse
		/* 11 */ {Code: ld, K: offArg2},
		/* 12 */ {Code: jeq, K: 0, Jt: 2, Jf: 0}, // allow
		/* 13 */ {Code: jeq, K: unix.IPPROTO_TCP, Jt: 1, Jf: 0}, // allow : refuse
		/* 14 */ {Code: ret, K: refuse},
		/* 15 */ {Code: ret, K: allw},
	}, nil
}
