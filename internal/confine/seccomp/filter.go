package seccomp

import (
	"fmt"
	"runtime"

	"github.com/ringfence/ringfence/policy"
)

// Options selects the filter Build emits. The zero value (for the running
// architecture) is the strictest filter but for unix-socket supervision.
type Options struct {
	// Arch is the GOARCH the confined command runs on: "amd64" or "arm64".
	// Empty means runtime.GOARCH. Any other value is an error, so a caller
	// on an unsupported machine fails closed instead of running unfiltered.
	Arch string
	// DenyUnixConnect sends connect(2), and sendto(2) with a destination
	// address, to SECCOMP_RET_USER_NOTIF, for SuperviseUnix to decide.
	// Install then returns the listener; without a supervisor reading it,
	// those calls block until the process is killed.
	DenyUnixConnect bool
	// AllowPtrace lets ptrace and process_vm_readv/writev through (for
	// debuggers run inside the sandbox). The pid namespace and Landlock's
	// ptrace scoping still keep them to the sandbox's own processes.
	AllowPtrace bool
	// GuardCreate sends to SECCOMP_RET_USER_NOTIF every syscall that can
	// create or replace a name (open/openat with O_CREAT, creat, mkdir*,
	// mknod*, symlink*, link*, rename*), for Supervise to check against
	// Rules.Protected and carry out; openat2, whose flags a filter cannot
	// read, fails with ENOSYS. See the package documentation.
	GuardCreate bool
	// GuardMeta sends every call that changes a file's metadata (chmod,
	// chown, utimes and setxattr/removexattr families, by path and by
	// descriptor) to the supervisor, which performs it only inside
	// Rules.MetaWritable. For the landlock backend: Landlock (ABI ≤ 7)
	// has no right for metadata and there is no read-only mount view.
	GuardMeta bool
	// LeaveSetGID lets chmod with S_ISGID (and without S_ISUID) through
	// this filter, for a filter stacked after it that supervises it
	// (bwrap's base filter when the exec shim supervises). Without it,
	// and without a listener, such a chmod fails with EPERM even on a
	// directory: only a supervisor can tell a directory (where S_ISGID is
	// ordinary) from a file (where it plants a set-group-id program).
	LeaveSetGID bool
	// GuardWrite, with GuardCreate, also sends open and openat whose flags
	// ask for writing (O_WRONLY, O_RDWR, O_TRUNC) and truncate(2), so the
	// supervisor can refuse writes to protected names (Rules.Names) that
	// no mount covers. See the package documentation.
	GuardWrite bool
	// GuardRemove, with GuardCreate, also sends unlink, unlinkat and rmdir,
	// so Rules.Protected paths cannot be deleted either: what a backend
	// without mounts (landlock) needs to hold read-only paths by path.
	GuardRemove bool
	// GuardListen, with DenyUnixConnect, also sends listen(2) to the
	// supervisor, which refuses it on IP sockets under Rules.InetConnect
	// (a sandbox sharing the host's network must not accept connections
	// from it: Landlock's bind rule does not cover an ephemeral port, nor
	// listen's implicit bind) and performs it on any other.
	GuardListen bool
}

// Actions a filter returns (SECCOMP_RET_*), exported for tests and for
// callers that narrate outcomes.
const (
	ActionAllow       = retAllow
	ActionKillProcess = retKillProcess
	ActionNotify      = retUserNotif
	ActionEPERM       = retErrno | errEPERM
	ActionENOSYS      = retErrno | errENOSYS
)

// ArchError says Build was asked for an architecture it has no filter for.
// It wraps policy.ErrUnavailable: the caller must not run unfiltered.
type ArchError struct{ Arch string }

func (e *ArchError) Error() string {
	return fmt.Sprintf("seccomp: no filter for architecture %q (supported: amd64, arm64)", e.Arch)
}

// Unwrap makes errors.Is(err, policy.ErrUnavailable) hold.
func (e *ArchError) Unwrap() error { return policy.ErrUnavailable }

// archTarget is one supported architecture.
type archTarget struct {
	audit    uint32 // AUDIT_ARCH_* in seccomp_data.arch
	table    map[string]int
	x32      bool            // reject the x32 ABI (nr & __X32_SYSCALL_BIT)
	optional map[string]bool // refused names this architecture lacks
}

const (
	x32Bit           = 0x40000000 // __X32_SYSCALL_BIT
	auditArchX86_64  = 0xc000003e // AUDIT_ARCH_X86_64
	auditArchAArch64 = 0xc00000b7 // AUDIT_ARCH_AARCH64
)

var targets = map[string]archTarget{
	"amd64": {audit: auditArchX86_64, table: syscallsAMD64, x32: true},
	"arm64": {audit: auditArchAArch64, table: syscallsARM64,
		optional: map[string]bool{"iopl": true, "ioperm": true,
			// arm64 has only the *at forms of the path syscalls
			"open": true, "creat": true, "mkdir": true, "mknod": true,
			"symlink": true, "link": true, "rename": true, "unlink": true, "rmdir": true}},
}

// Build returns the classic BPF program for opts. It is a pure function: it
// touches no kernel state, so it is table-tested and fuzzed. The program is
// a deny-list; see the package documentation for what it refuses and why.
func Build(opts Options) ([]SockFilter, error) {
	name := opts.Arch
	if name == "" {
		name = runtime.GOARCH
	}
	t, ok := targets[name]
	if !ok {
		return nil, &ArchError{Arch: name}
	}
	a := newAsm()
	archCheck(a, t)
	if err := dispatch(a, t, opts); err != nil {
		return nil, err
	}
	bodies(a, opts)
	return a.assemble()
}

// archCheck kills any syscall made through a foreign ABI. Syscall numbers
// differ between ABIs, so a filter that skipped this would be read with the
// wrong table: on amd64, `int 0x80` enters the i386 table and the x32 bit
// reaches a third. nr == -1 (0xffffffff) is let through to fail with ENOSYS,
// as libseccomp does: it is what a tracer's skipped syscall looks like.
func archCheck(a *asm, t archTarget) {
	a.load(offArch)
	a.jump(opJeq, t.audit, "", "kill")
	a.load(offNr)
	if t.x32 {
		a.jump(opJset, x32Bit, "x32", "table")
		a.label("x32")
		a.jump(opJeq, 0xffffffff, "table", "kill")
		a.label("table")
	}
}

// dispatch emits one comparison per refused syscall, jumping to its verdict.
func dispatch(a *asm, t archTarget, opts Options) error {
	for _, e := range entries(opts) {
		nr, ok := t.table[e.name]
		if !ok {
			if t.optional[e.name] {
				continue
			}
			return fmt.Errorf("seccomp: syscall %q missing from the table", e.name) // a bug here
		}
		a.jump(opJeq, uint32(nr), e.to, "")
	}
	a.ret(ActionAllow)
	return nil
}

// bodies emits the argument checks dispatch jumps to, then the shared
// verdicts. Every jump goes forward, as classic BPF requires.
func bodies(a *asm, opts Options) {
	cloneBody(a)
	ioctlBody(a)
	personalityBody(a)
	if opts.DenyUnixConnect {
		sendtoBody(a)
	}
	metaBodies(a, opts)
	if opts.hasListener() {
		a.label("notify")
		a.ret(ActionNotify)
	}
	a.label("allow")
	a.ret(ActionAllow)
	a.label("eperm")
	a.ret(ActionEPERM)
	a.label("enosys")
	a.ret(ActionENOSYS)
	a.label("kill")
	a.ret(ActionKillProcess)
}

// cloneNewMask is every namespace flag clone(2) accepts. CLONE_NEWTIME
// (0x80) is absent on purpose: in clone(2) those bits are the exit signal;
// only unshare and clone3 take it, and both are refused whole.
const cloneNewMask = cloneNewNS | cloneNewCgroup | cloneNewUTS |
	cloneNewIPC | cloneNewUser | cloneNewPID | cloneNewNet

// cloneBody refuses clone with any namespace flag. The kernel reads only
// the low 32 bits of the flags (lower_32_bits in kernel/fork.c), so the
// high word is ignored here too; both architectures pass flags first.
func cloneBody(a *asm) {
	a.label("clone")
	a.load(argLow(0))
	a.jump(opJset, cloneNewMask, "eperm", "")
	a.ret(ActionAllow)
}

// ioctlBody refuses the two terminal-injection requests. cmd is an unsigned
// int in the kernel, so a request with high bits set still means TIOCSTI:
// only the low word is compared.
func ioctlBody(a *asm) {
	a.label("ioctl")
	a.load(argLow(1))
	a.jump(opJeq, tiocsti, "eperm", "")
	a.jump(opJeq, tioclinux, "eperm", "")
	a.ret(ActionAllow)
}

// Personality values a normal program uses: PER_LINUX, PER_LINUX32 (only
// changes uname's machine, for `linux32` builds) and 0xffffffff, the query.
// Everything else (ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO, …)
// weakens the process's own hardening and is refused.
const (
	perLinux   = 0x0000
	perLinux32 = 0x0008
	perQuery   = 0xffffffff
)

func personalityBody(a *asm) {
	a.label("personality")
	a.load(argLow(0))
	a.jump(opJeq, perLinux, "allow", "")
	a.jump(opJeq, perLinux32, "allow", "")
	a.jump(opJeq, perQuery, "allow", "eperm")
}

// sendtoBody supervises sendto only when it names a destination (arg 4 is
// the address pointer): a connected socket's sends stay unsupervised.
func sendtoBody(a *asm) {
	a.label("sendto")
	a.load(argLow(4))
	a.jump(opJeq, 0, "", "notify")
	a.load(argHigh(4))
	a.jump(opJeq, 0, "allow", "notify")
}
