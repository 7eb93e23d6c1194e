package seccomp

// The set-id, metadata, vsock and datagram rules (issue 12 items 1–4).
// metaEntries is spliced into the dispatch table by entries, metaBodies
// into the program by bodies; both are pure and interpreted by the tests.

// modeChecked maps each call that takes a file mode to the body that
// checks it (the label names the argument index of the mode).
var modeChecked = []entry{
	{"chmod", "chmod1"}, {"fchmod", "chmod1"}, {"fchmodat", "chmod2"}, {"fchmodat2", "chmod2"},
	{"creat", "create1"}, {"mknod", "create1"}, {"mknodat", "create2"},
	{"open", "open"}, {"openat", "openat"},
}

// ownerCalls, timeCalls and xattrCalls change a file's metadata. Under
// Options.GuardMeta every one of them goes to the supervisor.
var (
	ownerCalls = []string{"chown", "fchown", "lchown", "fchownat"}
	timeCalls  = []string{"utime", "utimes", "futimesat", "utimensat"}
	xattrCalls = []string{"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
		"removexattr", "lremovexattr", "fremovexattr", "removexattrat"}
)

// hasListener says whether a filter built with opts hands anything to a
// supervisor (Install then returns a listener someone must read).
func (o Options) hasListener() bool { return o.DenyUnixConnect || o.GuardCreate || o.GuardMeta }

func metaEntries(opts Options) []entry {
	out := []entry{
		// AF_VSOCK reaches the hypervisor's services whatever the network
		// namespace: refused as a kernel without vsock would refuse it.
		{"socket", "socket"}, {"socketpair", "socket"},
		// Its mode sits behind a pointer (struct open_how): an O_CREAT
		// with S_ISUID could not be seen. glibc, Go and Rust use openat;
		// systemd falls back on ENOSYS.
		{"openat2", "enosys"},
	}
	out = append(out, modeChecked...)
	if opts.GuardMeta {
		// The *at forms of the xattr calls (Linux 6.13) take a struct
		// the supervisor does not replay; libc does not use them, and
		// callers fall back to the older calls on ENOSYS.
		out = append(out, entry{"setxattrat", "enosys"}, entry{"removexattrat", "enosys"})
		for _, group := range [][]string{ownerCalls, timeCalls, xattrCalls} {
			for _, name := range group {
				out = append(out, entry{name, "notify"})
			}
		}
	}
	if opts.DenyUnixConnect {
		// A datagram's destination sits in struct msghdr, behind a
		// pointer: every sendmsg goes to the supervisor (dgram_linux.go).
		out = append(out, entry{"sendmsg", "notify"}, entry{"sendmmsg", "notify"})
	}
	return out
}

// metaBodies emits the argument checks metaEntries jumps to.
func metaBodies(a *asm, opts Options) {
	a.label("socket")
	a.load(argLow(0)) // int domain
	a.jump(opJeq, afVsock, "eafnosupport", "allow")

	// chmod: S_ISUID never; S_ISGID only on a directory, which only the
	// supervisor can tell (fstat), so it goes there.
	other := "allow"
	if opts.GuardMeta {
		other = "notify"
	}
	setgid := "eperm" // no supervisor: the stricter rule, see Options.LeaveSetGID
	switch {
	case opts.LeaveSetGID:
		setgid = other // as any chmod: a later filter decides
	case opts.hasListener():
		setgid = "notify"
	}
	for _, i := range []int{1, 2} {
		a.label("chmod" + string(rune('0'+i)))
		a.load(argLow(i))
		a.jump(opJset, sISUID, "eperm", "")
		a.jump(opJset, sISGID, setgid, other)
	}

	// Creation modes: a file never starts out set-id (mkdir ignores both
	// bits, and a directory may inherit S_ISGID; it is not checked).
	created := "allow"
	if opts.GuardCreate {
		created = "notify"
	}
	for _, i := range []int{1, 2} {
		a.label("create" + string(rune('0'+i)))
		a.load(argLow(i))
		a.jump(opJset, sISUID|sISGID, "eperm", created)
	}
	openBody(a, "open", 1, openMask(opts))
	openBody(a, "openat", 2, openMask(opts))

	a.label("eafnosupport")
	a.ret(retErrno | errEAFNOSUPPORT)
}

// openBody refuses a set-id creation mode (argument flags+1), which the
// kernel reads only with O_CREAT or O_TMPFILE, and supervises an open
// whose flags (argument i) hold a bit of mask (openMask: O_CREAT under
// GuardCreate, the write flags too under GuardWrite; 0 supervises none). Flags and mode are
// ints in the kernel: only the low words are read.
func openBody(a *asm, label string, i int, mask uint32) {
	a.label(label)
	a.load(argLow(i))
	a.jump(opJset, oCreat|oTmpfileBit, "", label+"/guard")
	a.load(argLow(i + 1))
	a.jump(opJset, sISUID|sISGID, "eperm", "")
	a.label(label + "/guard")
	if mask == 0 {
		a.ret(ActionAllow)
		return
	}
	a.load(argLow(i))
	a.jump(opJset, mask, "notify", "allow")
}
