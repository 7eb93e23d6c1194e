package initproc

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// runBPF2 interprets the instructions ProxyInetFilter uses (loads, jeq,
// and, ret) against one seccomp_data.
func runBPF2(t *testing.T, prog []unix.SockFilter, data []byte) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if acc == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
			if pc+1 >= len(prog) {
				t.Fatalf("jump past the end at %d", pc)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("unexpected instruction %#x", in.Code)
		}
	}
	t.Fatal("program fell off its end")
	return 0
}

func TestProxyInetFilter(t *testing.T) {
	prog, err := ProxyInetFilter()
	if err != nil {
		t.Skipf("no filter for %s", runtime.GOARCH)
	}
	a := auditArch[runtime.GOARCH]
	refuse := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EACCES)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	const mptcp = 262
	cases := []struct {
		name          string
		arch, nr      uint32
		fam, typ, pro uint64
		want          uint32
	}{
		{"unix stream", a[0], a[1], unix.AF_UNIX, unix.SOCK_STREAM, 0, allow},
		{"unix dgram", a[0], a[1], unix.AF_UNIX, unix.SOCK_DGRAM, 0, allow},
		{"tcp", a[0], a[1], unix.AF_INET, unix.SOCK_STREAM, 0, allow},
		{"tcp explicit", a[0], a[1], unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP, allow},
		{"tcp6 nonblocking cloexec", a[0], a[1], unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC, unix.IPPROTO_TCP, allow},
		{"mptcp", a[0], a[1], unix.AF_INET, unix.SOCK_STREAM, mptcp, refuse},
		{"mptcp6", a[0], a[1], unix.AF_INET6, unix.SOCK_STREAM | unix.SOCK_NONBLOCK, mptcp, refuse},
		{"sctp stream", a[0], a[1], unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP, refuse},
		{"udp", a[0], a[1], unix.AF_INET, unix.SOCK_DGRAM, 0, refuse},
		{"udp6", a[0], a[1], unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_UDP, refuse},
		{"icmp ping", a[0], a[1], unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP, refuse},
		{"raw", a[0], a[1], unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_TCP, refuse},
		{"seqpacket", a[0], a[1], unix.AF_INET, unix.SOCK_SEQPACKET, 0, refuse},
		{"packet", a[0], a[1], unix.AF_PACKET, unix.SOCK_RAW, 0, refuse},
		{"netlink", a[0], a[1], unix.AF_NETLINK, unix.SOCK_RAW, 0, refuse},
		{"vsock", a[0], a[1], unix.AF_VSOCK, unix.SOCK_STREAM, 0, refuse},
		{"high bits do not hide a family", a[0], a[1], 1<<32 | unix.AF_PACKET, unix.SOCK_STREAM, 0, refuse},
		{"high bits of the protocol ignored as the kernel does", a[0], a[1], unix.AF_INET, unix.SOCK_STREAM, 1<<32 | mptcp, refuse},
		{"other syscall", a[0], a[1] + 1, unix.AF_PACKET, 0, 0, allow},
		{"other arch left to the shared filter", 0x40000003, a[1], unix.AF_PACKET, 0, 0, allow},
	}
	for _, c := range cases {
		d := seccompData(c.arch, c.nr, c.fam)
		binary.LittleEndian.PutUint64(d[24:], c.typ)
		binary.LittleEndian.PutUint64(d[32:], c.pro)
		if got := runBPF2(t, prog, d); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}
