package seccomp

import (
	"errors"
	"fmt"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"

	"github.com/ringfence/ringfence/policy"
)

// Test-only Linux ABI values (checked in abi_linux_test.go).
const (
	cloneVM, cloneFS, cloneFiles, cloneSighand = 0x100, 0x200, 0x400, 0x800
	cloneVfork, cloneThread, cloneSysvsem      = 0x4000, 0x10000, 0x40000
	tcgets                                     = 0x5401
)

const (
	auditX86_64  = 0xc000003e
	auditI386    = 0x40000003
	auditAArch64 = 0xc00000b7
	auditARM     = 0x40000028
)

// known holds syscall numbers written out by hand from the kernel's tables,
// so the test does not only trust the table Build itself uses.
var known = map[string]map[string]int32{
	"amd64": {"read": 0, "write": 1, "ioctl": 16, "getpid": 39, "socket": 41, "connect": 42,
		"sendto": 44, "clone": 56, "execve": 59, "ptrace": 101, "personality": 135,
		"mount": 165, "openat": 257, "open_by_handle_at": 304, "clone3": 435, "iopl": 172},
	"arm64": {"read": 63, "write": 64, "ioctl": 29, "getpid": 172, "socket": 198, "connect": 203,
		"sendto": 206, "clone": 220, "execve": 221, "ptrace": 117, "personality": 92,
		"mount": 40, "openat": 56, "open_by_handle_at": 265, "clone3": 435},
}

// reference holds complete syscall tables, for the allowed calls the
// filter's own table does not list.
var reference = map[string]*arch.Info{"amd64": arch.X86_64, "arm64": arch.AARCH64}

var audit = map[string]uint32{"amd64": auditX86_64, "arm64": auditAArch64}

func nr(t testing.TB, goarch, name string) int32 {
	t.Helper()
	n, ok := reference[goarch].SyscallNames[name]
	if !ok {
		t.Fatalf("%s has no syscall %q", goarch, name)
	}
	if want, ok := known[goarch][name]; ok && int32(n) != want {
		t.Fatalf("%s %s: table says %d, kernel says %d", goarch, name, n, want)
	}
	return int32(n)
}

type tcase struct {
	name   string
	opts   Options
	sys    string // syscall name, or "" to use nr
	nr     int32
	arch   uint32 // used only when raw; otherwise the filter's own
	raw    bool
	args   [6]uint64
	action uint32
}

func eval(t *testing.T, goarch string, c tcase) uint32 {
	t.Helper()
	c.opts.Arch = goarch
	prog, err := Build(c.opts)
	if err != nil {
		t.Fatal(err)
	}
	d := data{nr: c.nr, arch: c.arch, args: c.args}
	if c.sys != "" {
		d.nr = nr(t, goarch, c.sys)
	}
	if !c.raw {
		d.arch = audit[goarch]
	}
	got, err := run(prog, d)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestRefusedWhateverTheArguments(t *testing.T) {
	for goarch := range targets {
		for _, name := range refused {
			if targets[goarch].optional[name] {
				if _, ok := targets[goarch].table[name]; ok {
					t.Errorf("%s: %s is marked optional but exists", goarch, name)
				}
				continue
			}
			for _, args := range [][6]uint64{{}, {1, 2, 3, 4, 5, 6}, {^uint64(0), ^uint64(0)}} {
				for _, opts := range []Options{{}, {DenyUnixConnect: true}} {
					c := tcase{sys: name, args: args, opts: opts}
					if got := eval(t, goarch, c); got != ActionEPERM {
						t.Errorf("%s %s%v %+v: got %s, want EPERM", goarch, name, args, opts, actionName(got))
					}
				}
			}
		}
	}
}

func TestTable(t *testing.T) {
	deny := Options{DenyUnixConnect: true}
	guard := Options{GuardCreate: true}
	both := Options{DenyUnixConnect: true, GuardCreate: true}
	cases := []tcase{
		{name: "read", sys: "read", action: ActionAllow},
		{name: "write", sys: "write", args: [6]uint64{1}, action: ActionAllow},
		{name: "openat", sys: "openat", action: ActionAllow},
		{name: "execve", sys: "execve", action: ActionAllow},
		{name: "getpid", sys: "getpid", action: ActionAllow},
		{name: "socket inet", sys: "socket", args: [6]uint64{2, 1}, action: ActionAllow},
		{name: "socket unix", sys: "socket", args: [6]uint64{afUnix, 1}, action: ActionAllow},
		{name: "connect unsupervised", sys: "connect", action: ActionAllow},
		{name: "connect supervised", sys: "connect", opts: deny, action: ActionNotify},
		{name: "sendto connected", sys: "sendto", opts: deny, args: [6]uint64{3, 0x1000, 10, 0, 0, 0}, action: ActionAllow},
		{name: "sendto with address", sys: "sendto", opts: deny, args: [6]uint64{3, 0x1000, 10, 0, 0x2000, 110}, action: ActionNotify},
		{name: "sendto address high word", sys: "sendto", opts: deny, args: [6]uint64{3, 0, 0, 0, 1 << 40, 110}, action: ActionNotify},
		{name: "sendto unsupervised", sys: "sendto", args: [6]uint64{3, 0, 0, 0, 0x2000, 110}, action: ActionAllow},
		{name: "ptrace allowed", sys: "ptrace", opts: Options{AllowPtrace: true}, action: ActionAllow},
		{name: "process_vm_readv allowed", sys: "process_vm_readv", opts: Options{AllowPtrace: true}, action: ActionAllow},
		{name: "mount despite AllowPtrace", sys: "mount", opts: Options{AllowPtrace: true}, action: ActionEPERM},
		{name: "clone3", sys: "clone3", action: ActionENOSYS},
		{name: "clone fork", sys: "clone", args: [6]uint64{17}, action: ActionAllow},
		{name: "clone thread", sys: "clone", args: [6]uint64{cloneVM | cloneFS | cloneFiles |
			cloneSighand | cloneSysvsem | cloneThread}, action: ActionAllow},
		{name: "clone vfork", sys: "clone", args: [6]uint64{cloneVM | cloneVfork | 17}, action: ActionAllow},
		{name: "clone exit signal 0x80 is not NEWTIME", sys: "clone", args: [6]uint64{0x80}, action: ActionAllow},
		{name: "clone NEWUSER|THREAD", sys: "clone", args: [6]uint64{cloneNewUser | cloneThread | cloneVM | cloneSighand}, action: ActionEPERM},
		{name: "clone NEWUSER high garbage", sys: "clone", args: [6]uint64{0xffff_0000_0000_0000 | cloneNewUser}, action: ActionEPERM},
		{name: "clone NEW flag only in ignored high word", sys: "clone", args: [6]uint64{cloneNewUser << 32}, action: ActionAllow},
		{name: "ioctl TIOCSTI", sys: "ioctl", args: [6]uint64{0, tiocsti}, action: ActionEPERM},
		{name: "ioctl TIOCSTI high bits", sys: "ioctl", args: [6]uint64{0, 0xdead_beef_0000_0000 | tiocsti}, action: ActionEPERM},
		{name: "ioctl TIOCLINUX", sys: "ioctl", args: [6]uint64{0, tioclinux}, action: ActionEPERM},
		{name: "ioctl TIOCLINUX high bits", sys: "ioctl", args: [6]uint64{0, 1<<32 | tioclinux}, action: ActionEPERM},
		{name: "ioctl TCGETS", sys: "ioctl", args: [6]uint64{0, tcgets}, action: ActionAllow},
		{name: "ioctl FIONREAD", sys: "ioctl", args: [6]uint64{0, 0x541B}, action: ActionAllow},
		{name: "ioctl TIOCSTI in arg 2 only", sys: "ioctl", args: [6]uint64{0, tcgets, tiocsti}, action: ActionAllow},
		{name: "personality query", sys: "personality", args: [6]uint64{0xffffffff}, action: ActionAllow},
		{name: "personality query sign-extended", sys: "personality", args: [6]uint64{^uint64(0)}, action: ActionAllow},
		{name: "personality PER_LINUX", sys: "personality", args: [6]uint64{0}, action: ActionAllow},
		{name: "personality PER_LINUX32", sys: "personality", args: [6]uint64{8}, action: ActionAllow},
		{name: "personality ADDR_NO_RANDOMIZE", sys: "personality", args: [6]uint64{0x0040000}, action: ActionEPERM},
		{name: "personality READ_IMPLIES_EXEC", sys: "personality", args: [6]uint64{0x0400000}, action: ActionEPERM},
		{name: "personality MMAP_PAGE_ZERO", sys: "personality", args: [6]uint64{0x0100000}, action: ActionEPERM},
		{name: "unknown syscall number", nr: 1000, action: ActionAllow},
		{name: "openat O_CREAT unguarded", sys: "openat", args: [6]uint64{0, 0, oCreat}, action: ActionAllow},
		{name: "mkdirat unguarded", sys: "mkdirat", action: ActionAllow},
		{name: "renameat2 unguarded", sys: "renameat2", action: ActionAllow},
		{name: "openat2 unguarded: mode unreadable", sys: "openat2", action: ActionENOSYS},
		{name: "openat O_CREAT", sys: "openat", opts: guard, args: [6]uint64{0, 0, oCreat | 1}, action: ActionNotify},
		{name: "openat O_CREAT high garbage", sys: "openat", opts: guard, args: [6]uint64{0, 0, 0xffff_0000_0000_0000 | oCreat}, action: ActionNotify},
		{name: "openat O_CREAT only in ignored high word", sys: "openat", opts: guard, args: [6]uint64{0, 0, oCreat << 32}, action: ActionAllow},
		{name: "openat read", sys: "openat", opts: guard, args: [6]uint64{0, 0, 0}, action: ActionAllow},
		{name: "openat O_TMPFILE", sys: "openat", opts: guard, args: [6]uint64{0, 0, 0x410000 | 2}, action: ActionAllow},
		{name: "openat O_CREAT in the mode slot", sys: "openat", opts: guard, args: [6]uint64{0, 0, 1, oCreat}, action: ActionAllow},
		{name: "openat2 refused", sys: "openat2", opts: guard, action: ActionENOSYS},
		{name: "mkdirat", sys: "mkdirat", opts: guard, action: ActionNotify},
		{name: "mknodat", sys: "mknodat", opts: guard, action: ActionNotify},
		{name: "symlinkat", sys: "symlinkat", opts: guard, action: ActionNotify},
		{name: "linkat", sys: "linkat", opts: guard, action: ActionNotify},
		{name: "renameat", sys: "renameat", opts: guard, action: ActionNotify},
		{name: "renameat2", sys: "renameat2", opts: guard, action: ActionNotify},
		{name: "unlinkat not guarded", sys: "unlinkat", opts: guard, action: ActionAllow},
		{name: "truncate not guarded", sys: "truncate", opts: guard, action: ActionAllow},
		{name: "connect not supervised by guard", sys: "connect", opts: guard, action: ActionAllow},
		{name: "connect with both", sys: "connect", opts: both, action: ActionNotify},
		{name: "sendto with both", sys: "sendto", opts: both, args: [6]uint64{3, 0, 0, 0, 0x2000, 110}, action: ActionNotify},
		{name: "mkdirat with both", sys: "mkdirat", opts: both, action: ActionNotify},
		{name: "mount with both", sys: "mount", opts: both, action: ActionEPERM},
	}
	for goarch := range targets {
		for _, c := range cases {
			t.Run(goarch+"/"+c.name, func(t *testing.T) {
				if got := eval(t, goarch, c); got != c.action {
					t.Errorf("got %s, want %s", actionName(got), actionName(c.action))
				}
			})
		}
	}
}

// TestGuardCreateLegacy covers the amd64-only path syscalls.
func TestGuardCreateLegacy(t *testing.T) {
	guard := Options{GuardCreate: true}
	for _, c := range []tcase{
		{sys: "open", opts: guard, args: [6]uint64{0, oCreat}, action: ActionNotify},
		{sys: "open", opts: guard, args: [6]uint64{0, 2}, action: ActionAllow},
		{sys: "open", opts: guard, args: [6]uint64{0, 0, oCreat}, action: ActionAllow},
		{sys: "open", args: [6]uint64{0, oCreat}, action: ActionAllow},
		{sys: "creat", opts: guard, action: ActionNotify},
		{sys: "mkdir", opts: guard, action: ActionNotify},
		{sys: "mknod", opts: guard, action: ActionNotify},
		{sys: "symlink", opts: guard, action: ActionNotify},
		{sys: "link", opts: guard, action: ActionNotify},
		{sys: "rename", opts: guard, action: ActionNotify},
		{sys: "rename", action: ActionAllow},
	} {
		if got := eval(t, "amd64", c); got != c.action {
			t.Errorf("%s%v %+v: got %s, want %s", c.sys, c.args[:3], c.opts, actionName(got), actionName(c.action))
		}
	}
	for _, name := range []string{"open", "creat", "mkdir", "mknod", "symlink", "link", "rename"} {
		if _, ok := targets["arm64"].table[name]; ok || !targets["arm64"].optional[name] {
			t.Errorf("arm64 %s: should be absent and optional", name)
		}
	}
}

func TestForeignArchitectureKilled(t *testing.T) {
	for goarch := range targets {
		for _, a := range []uint32{auditI386, auditX86_64, auditAArch64, auditARM, 0, 0xffffffff} {
			if a == audit[goarch] {
				continue
			}
			for _, n := range []int32{0, 20, 39, 101, 172, 435, -1} {
				for _, opts := range []Options{{}, {DenyUnixConnect: true, AllowPtrace: true}} {
					c := tcase{nr: n, arch: a, raw: true, opts: opts}
					if got := eval(t, goarch, c); got != ActionKillProcess {
						t.Errorf("%s filter, arch %#x nr %d: got %s, want kill", goarch, a, n, actionName(got))
					}
				}
			}
		}
	}
}

func TestX32Killed(t *testing.T) {
	for _, n := range []int32{x32Bit | 39, x32Bit, x32Bit | 101, x32Bit | 512, x32Bit | 0x3fffffff, -2} {
		if got := eval(t, "amd64", tcase{nr: n}); got != ActionKillProcess {
			t.Errorf("x32 nr %#x: got %s, want kill", uint32(n), actionName(got))
		}
	}
	// -1 is what a skipped syscall looks like; the kernel answers ENOSYS.
	if got := eval(t, "amd64", tcase{nr: -1}); got != ActionAllow {
		t.Errorf("nr -1: got %s, want allow (kernel ENOSYS)", actionName(got))
	}
}

func TestUnsupportedArchFailsClosed(t *testing.T) {
	for _, a := range []string{"386", "arm", "riscv64", "s390x", "x32", "AMD64"} {
		prog, err := Build(Options{Arch: a})
		var ae *ArchError
		if prog != nil || !errors.As(err, &ae) || !errors.Is(err, policy.ErrUnavailable) {
			t.Errorf("Build(%q) = %d instructions, %v; want an ArchError wrapping ErrUnavailable", a, len(prog), err)
		}
	}
}

func TestProgramSize(t *testing.T) {
	for goarch := range targets {
		for _, opts := range []Options{{}, {DenyUnixConnect: true}, {DenyUnixConnect: true, GuardCreate: true}} {
			opts.Arch = goarch
			prog, err := Build(opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %+v: %d instructions", goarch, opts, len(prog))
			if len(prog) > 200 {
				t.Errorf("%d instructions: grew past the budget", len(prog))
			}
		}
	}
}

func actionName(a uint32) string {
	switch a {
	case ActionAllow:
		return "allow"
	case ActionKillProcess:
		return "kill"
	case ActionNotify:
		return "notify"
	case ActionEPERM:
		return "EPERM"
	case ActionENOSYS:
		return "ENOSYS"
	}
	return fmt.Sprintf("%#x", a)
}

func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	var n int
	for b.Loop() {
		prog, err := Build(Options{Arch: "amd64", DenyUnixConnect: true})
		if err != nil {
			b.Fatal(err)
		}
		n = len(prog)
	}
	b.ReportMetric(float64(n), "insns")
}
