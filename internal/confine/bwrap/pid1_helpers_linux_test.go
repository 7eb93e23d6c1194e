package bwrap_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pid1Attack is one attempt of the command on the sandbox's pid 1, or on
// /proc; it exits 0 when the attempt worked, 3 when it was refused (the
// errno on stderr). None changes anything: a write puts back what it read.
func pid1Attack(args []string) int {
	switch args[0] {
	case "openw": // openw PATH: open for writing (no O_TRUNC, nothing written) and close
		fd, err := unix.Open(args[1], unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return refused(err)
		}
		_ = unix.Close(fd)
		return 0
	case "mem": // rewrite 8 bytes of pid 1's writable memory with themselves
		return pokeSame()
	case "environ": // read pid 1's environment
		if _, err := os.ReadFile("/proc/1/environ"); err != nil {
			return refused(err)
		}
		return 0
	case "kcmp": // compare pid 1's address space with ours
		_, _, e := unix.Syscall6(unix.SYS_KCMP, uintptr(os.Getpid()), 1, 1 /* KCMP_VM */, 0, 0, 0)
		if e != 0 {
			return refused(e)
		}
		return 0
	case "getfd": // take a copy of pid 1's descriptor 0
		pidfd, err := unix.PidfdOpen(1, 0)
		if err != nil {
			return refused(err)
		}
		fd, err := unix.PidfdGetfd(pidfd, 0, 0)
		if err != nil {
			return refused(err)
		}
		_ = unix.Close(fd)
		return 0
	case "madvise": // process_madvise on pid 1: EPERM/EACCES when its mm is refused
		pidfd, err := unix.PidfdOpen(1, 0)
		if err != nil {
			return refused(err)
		}
		var b [1]byte
		iov := unix.Iovec{Base: &b[0], Len: 1}
		// MADV_DONTNEED is not allowed on another process: once the mm
		// check passed, the kernel says EINVAL (nothing is done).
		_, _, e := unix.Syscall6(unix.SYS_PROCESS_MADVISE, uintptr(pidfd), uintptr(unsafe.Pointer(&iov)), 1, unix.MADV_DONTNEED, 0, 0)
		if e == unix.EPERM || e == unix.EACCES || e == unix.ESRCH {
			return refused(e)
		}
		fmt.Fprintln(os.Stderr, "process_madvise passed the access check:", e)
		return 0
	case "vmread": // process_vm_readv from pid 1: EFAULT means the access check passed
		var b [8]byte
		local := unix.Iovec{Base: &b[0], Len: 8}
		remote := unix.RemoteIovec{Base: 0x1000, Len: 8}
		_, err := unix.ProcessVMReadv(1, []unix.Iovec{local}, []unix.RemoteIovec{remote}, 0)
		if err == unix.EPERM || err == unix.EACCES || err == unix.ESRCH {
			return refused(err)
		}
		return 0
	case "seize": // attach to pid 1 as a tracer (PTRACE_SEIZE does not stop it), then detach
		if err := unix.PtraceSeize(1); err != nil {
			return refused(err)
		}
		_ = unix.PtraceDetach(1)
		return 0
	case "whois1": // print pid 1's command line and our parent
		b, _ := os.ReadFile("/proc/1/cmdline")
		fmt.Printf("%s ppid=%d\n", strings.ReplaceAll(string(b), "\x00", " "), os.Getppid())
		return 0
	}
	return 2
}

func refused(err error) int {
	fmt.Fprintln(os.Stderr, err)
	return 3
}

// pokeSame finds a writable mapping of pid 1 and writes 8 of its bytes
// back over themselves through /proc/1/mem: the primitive an injection
// needs, without changing anything.
func pokeSame() int {
	maps, err := os.Open("/proc/1/maps")
	if err != nil {
		return refused(err)
	}
	defer maps.Close()
	var addr uint64
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 1 && strings.HasPrefix(f[1], "rw") {
			start, _, _ := strings.Cut(f[0], "-")
			addr, _ = strconv.ParseUint(start, 16, 64)
			break
		}
	}
	if addr == 0 {
		return refused(fmt.Errorf("no writable mapping seen in /proc/1/maps"))
	}
	mem, err := os.OpenFile("/proc/1/mem", os.O_RDWR, 0)
	if err != nil {
		return refused(err)
	}
	defer mem.Close()
	buf := make([]byte, 8)
	if _, err := mem.ReadAt(buf, int64(addr)); err != nil {
		return refused(err)
	}
	if _, err := mem.WriteAt(buf, int64(addr)); err != nil {
		return refused(err)
	}
	return 0
}
