package seccomp

// Syscall numbers of the calls meta.go routes, per architecture (kernel
// tables as in syscalls.go; checked by TestSyscallTables). They live apart
// from syscalls.go and are merged in at init, so the two lists can grow
// independently.
var (
	metaAMD64 = map[string]int{
		"socket": 41, "socketpair": 53, "sendmsg": 46, "sendmmsg": 307,
		"open": 2, "openat": 257, "creat": 85, "mknod": 133, "mknodat": 259,
		"chmod": 90, "fchmod": 91, "fchmodat": 268, "fchmodat2": 452,
		"chown": 92, "fchown": 93, "lchown": 94, "fchownat": 260,
		"utime": 132, "utimes": 235, "futimesat": 261, "utimensat": 280,
		"setxattr": 188, "lsetxattr": 189, "fsetxattr": 190, "setxattrat": 463,
		"removexattr": 197, "lremovexattr": 198, "fremovexattr": 199, "removexattrat": 466,
	}
	metaARM64 = map[string]int{
		"socket": 198, "socketpair": 199, "sendmsg": 211, "sendmmsg": 269,
		"openat": 56, "mknodat": 33,
		"fchmod": 52, "fchmodat": 53, "fchmodat2": 452,
		"fchown": 55, "fchownat": 54, "utimensat": 88,
		"setxattr": 5, "lsetxattr": 6, "fsetxattr": 7, "setxattrat": 463,
		"removexattr": 14, "lremovexattr": 15, "fremovexattr": 16, "removexattrat": 466,
	}
	// metaARM64Absent are the legacy forms arm64 never had.
	metaARM64Absent = []string{"chmod", "chown", "lchown", "utime", "utimes", "futimesat"}
)

func init() {
	for name, nr := range metaAMD64 {
		mergeNr(syscallsAMD64, name, nr)
	}
	for name, nr := range metaARM64 {
		mergeNr(syscallsARM64, name, nr)
	}
	for _, name := range metaARM64Absent {
		targets["arm64"].optional[name] = true
	}
}

// mergeNr adds one number; a name already present with another number is
// a bug in one of the tables.
func mergeNr(table map[string]int, name string, nr int) {
	if old, ok := table[name]; ok && old != nr {
		panic("seccomp: syscall " + name + " has two numbers")
	}
	table[name] = nr
}

// listenNr is listen(2), which Options.GuardListen routes.
var listenNr = map[string]int{"amd64": 50, "arm64": 201}

func init() {
	mergeNr(syscallsAMD64, "listen", listenNr["amd64"])
	mergeNr(syscallsARM64, "listen", listenNr["arm64"])
}
