package initproc

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// run interprets the few classic BPF instructions InetFilter uses against
// one seccomp_data.
func runBPF(t *testing.T, prog []unix.SockFilter, data []byte) uint32 {
	t.Helper()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if acc == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
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

func seccompData(arch, nr uint32, arg0 uint64) []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], nr)
	binary.LittleEndian.PutUint32(b[4:], arch)
	binary.LittleEndian.PutUint64(b[16:], arg0)
	return b
}

func TestInetFilter(t *testing.T) {
	prog, err := InetFilter()
	if err != nil {
		t.Skipf("no filter for %s", runtime.GOARCH)
	}
	a := auditArch[runtime.GOARCH]
	refuse := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EACCES)
	cases := []struct {
		name     string
		arch, nr uint32
		family   uint64
		want     uint32
	}{
		{"unix socket", a[0], a[1], unix.AF_UNIX, unix.SECCOMP_RET_ALLOW},
		{"inet", a[0], a[1], unix.AF_INET, refuse},
		{"inet6", a[0], a[1], unix.AF_INET6, refuse},
		{"netlink", a[0], a[1], unix.AF_NETLINK, refuse},
		{"packet", a[0], a[1], unix.AF_PACKET, refuse},
		{"high bits do not hide AF_UNIX", a[0], a[1], 1<<32 | unix.AF_INET, refuse},
		{"other syscall", a[0], a[1] + 1, unix.AF_INET, unix.SECCOMP_RET_ALLOW},
		{"other arch left to the shared filter", 0x40000003, a[1], unix.AF_INET, unix.SECCOMP_RET_ALLOW},
	}
	for _, c := range cases {
		if got := runBPF(t, prog, seccompData(c.arch, c.nr, c.family)); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}
