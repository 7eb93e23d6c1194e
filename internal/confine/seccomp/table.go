package seccomp

// entry is one refused (or supervised) syscall and the label of its verdict.
type entry struct{ name, to string }

// refused lists the syscalls answered EPERM whatever their arguments. The
// package documentation gives the attack each group answers.
var refused = []string{
	// tracing another process: read or rewrite its memory
	"ptrace", "process_vm_readv", "process_vm_writev",
	// changing the mount view, old and new API
	"mount", "umount2", "pivot_root", "chroot",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount",
	"open_tree", "open_tree_attr", "mount_setattr",
	// new namespaces (a fresh user namespace regains every capability)
	"unshare", "setns",
	// large kernel attack surfaces
	"bpf", "perf_event_open", "userfaultfd",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"keyctl", "add_key", "request_key",
	// loading code into, or replacing, the kernel
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	// host state
	"acct", "swapon", "swapoff", "reboot", "quotactl", "quotactl_fd",
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "syslog", "vhangup", "nfsservctl",
	"iopl", "ioperm", "lookup_dcookie",
	// file handles bypass the mount view (the "shocker" escape)
	"open_by_handle_at", "name_to_handle_at",
	// filesystem-wide event watching
	"fanotify_init",
}

// creating lists the syscalls that always create or replace a name, which
// Options.GuardCreate sends to the supervisor whatever their arguments
// (open and openat go only with O_CREAT).
var creating = []string{
	"creat", "mkdir", "mkdirat", "mknod", "mknodat", "symlink", "symlinkat",
	"link", "linkat", "rename", "renameat", "renameat2",
}

// ptraceGroup is what Options.AllowPtrace lets through.
var ptraceGroup = map[string]bool{"ptrace": true, "process_vm_readv": true, "process_vm_writev": true}

// entries is the dispatch table for opts, in program order.
func entries(opts Options) []entry {
	out := make([]entry, 0, len(refused)+6)
	for _, name := range refused {
		if opts.AllowPtrace && ptraceGroup[name] {
			continue
		}
		out = append(out, entry{name, "eperm"})
	}
	out = append(out,
		entry{"clone3", "enosys"}, // flags sit behind a pointer; libc falls back to clone
		entry{"clone", "clone"},
		entry{"ioctl", "ioctl"},
		entry{"personality", "personality"},
	)
	out = append(out, metaEntries(opts)...)
	if opts.DenyUnixConnect {
		out = append(out, entry{"connect", "notify"}, entry{"sendto", "sendto"})
		if opts.GuardListen {
			out = append(out, entry{"listen", "notify"})
		}
	}
	if opts.GuardCreate {
		out = append(out, entry{"openat2", "enosys"}, // flags behind a pointer; libc uses openat
			entry{"open", "open"}, entry{"openat", "openat"})
		for _, name := range creating {
			out = append(out, entry{name, "notify"})
		}
		if opts.GuardWrite {
			out = append(out, entry{"truncate", "notify"})
		}
		if opts.GuardRemove {
			out = append(out, entry{"unlink", "notify"}, entry{"unlinkat", "notify"}, entry{"rmdir", "notify"})
		}
	}
	return firstWins(out)
}

// firstWins drops later entries for a name already dispatched: the
// program's first comparison decides, so a later one would be dead code.
func firstWins(in []entry) []entry {
	seen := map[string]bool{}
	out := in[:0]
	for _, e := range in {
		if !seen[e.name] {
			seen[e.name] = true
			out = append(out, e)
		}
	}
	return out
}
