package initproc

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/seccomp"
)

// procHost is the step the view takes where the kernel refuses a fresh
// procfs: inside a container whose runtime masked parts of /proc
// (/proc/kcore, /proc/keys, … under bind mounts, /proc/sys read-only), a
// proc mount in a new user namespace is "too revealing" and fails with
// EPERM whatever the caller does. The namespaces and the rest of the view
// still stand, so rather than give them all up for Landlock alone, the
// init shows the container's own /proc:
//
//   - bound recursively (its masks come along: they are locked to us) and
//     read-only, nosuid, nodev, noexec;
//   - with the /proc/<pid> directory of every process present now but the
//     init itself masked (empty, mode 000): the supervisor, the
//     container's pid 1, the agent and its other commands — and the
//     /proc/<tid> of each of their threads, which /proc does not list but
//     opens all the same;
//   - /proc/self and /proc/thread-self resolve in that /proc's pid
//     namespace, so a process's own entries work.
//
// What it cannot do, and the backend reports in every run's reasons:
// processes the container starts after this moment are listed, with their
// command lines and status, and so is a thread a masked process starts
// after it (through /proc/<tid>: its process's command line and status) (hidepid needs a new mount, the very thing
// refused). They stay out of reach otherwise: the pid namespace gives no
// pid to signal them by (a /proc/<pid> descriptor used as a pidfd is
// refused for a task outside the caller's namespace), and Landlock and
// seccomp refuse tracing and the ptrace-checked files (environ, mem, fd,
// maps, root, cwd). And pids differ: a command's getpid() is its pid in
// the sandbox's namespace, /proc shows the container's numbering.
func (vw *view) procHost(target string) error {
	src, err := unix.OpenTree(unix.AT_FDCWD, "/proc",
		unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	const attrs = unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV | unix.MOUNT_ATTR_NOEXEC
	if err := setattr(src, true, attrs, 0); err != nil {
		return err
	}
	if err := vw.mountAt(src, target, true, true); err != nil {
		return err
	}
	// The seccomp supervisor builds /proc paths from the tids its
	// notifications carry (this pid namespace's): this /proc numbers them
	// as the container does.
	seccomp.UseHostProc()
	self, err := os.Readlink("/proc/self")
	if err != nil {
		return err
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !isPid(e.Name()) || e.Name() == self {
			continue
		}
		// /proc lists only thread-group leaders, but /proc/<tid> of any
		// other thread opens too, with the process's command line,
		// status and descriptor numbers: each thread is masked as well.
		// (Read before the leader is masked; a process that ended
		// meanwhile has nothing left to hide, and mask treats a missing
		// target as done.)
		for _, tid := range threads(e.Name()) {
			if err := vw.mask(target + "/" + tid); err != nil {
				return err
			}
		}
		if err := vw.mask(target + "/" + e.Name()); err != nil {
			return err
		}
	}
	return nil
}

// threads lists the ids of pid's threads other than pid itself (none when
// it has ended).
func threads(pid string) []string {
	ents, err := os.ReadDir("/proc/" + pid + "/task")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if isPid(e.Name()) && e.Name() != pid {
			out = append(out, e.Name())
		}
	}
	return out
}

// isPid reports whether a /proc entry names a process.
func isPid(name string) bool {
	n, err := strconv.Atoi(name)
	return err == nil && n > 0 && strconv.Itoa(n) == name
}
