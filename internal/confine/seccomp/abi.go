package seccomp

// Linux ABI values the pure filter builder needs, written out so the
// builder compiles (and is tested) on any GOOS: x/sys/unix defines most
// of these only for Linux, and some (ENOSYS, TIOCSTI) differ elsewhere.
// abi_linux_test.go checks each against x/sys/unix.
const (
	errEPERM  = 1
	errENOSYS = 38

	afUnix = 1

	oCreat = 0x40 // O_CREAT, the same on amd64 and arm64
	// O_WRONLY, O_RDWR, O_TRUNC: the same on amd64 and arm64
	oWronly, oRdwr, oTrunc = 0x1, 0x2, 0x200

	tiocsti   = 0x5412 // same on amd64 and arm64
	tioclinux = 0x541c

	cloneNewNS     = 0x00020000
	cloneNewCgroup = 0x02000000
	cloneNewUTS    = 0x04000000
	cloneNewIPC    = 0x08000000
	cloneNewUser   = 0x10000000
	cloneNewPID    = 0x20000000
	cloneNewNet    = 0x40000000

	bpfLD, bpfW, bpfABS           = 0x00, 0x00, 0x20
	bpfJMP, bpfJA, bpfJEQ, bpfJGT = 0x05, 0x00, 0x10, 0x20
	bpfJGE, bpfJSET, bpfK, bpfRET = 0x30, 0x40, 0x00, 0x06
	bpfMaxInsns                   = 4096

	retKillProcess = 0x80000000
	retUserNotif   = 0x7fc00000
	retErrno       = 0x00050000
	retAllow       = 0x7fff0000
	retActionFull  = 0xffff0000
)
