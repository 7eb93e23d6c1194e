package seccomp

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// createMode applies the target's umask to the mode of a new file or
// directory. The supervisor set its own process umask to 0 at its first
// creation (umask is per process, so it is set once, not per call), so the
// mode computed here is exactly the one the kernel stores: mode &^ umask,
// as it would have been for the target. Directories with a default ACL are
// the exception (see the package documentation).
func (t *target) createMode(mode uint32) (uint32, unix.Errno) {
	mask, errno := t.umask()
	if errno != 0 {
		return 0, errno
	}
	return mode &^ mask, 0
}

// umask reads the target thread's umask from /proc/TID/status (Linux
// 4.7+). It is per fs_struct, so the thread's own value is the right one.
func (t *target) umask() (uint32, unix.Errno) {
	f, err := os.Open("/proc/" + t.pid + "/status")
	if err != nil {
		return 0, unix.ESRCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				break
			}
			return uint32(m) & 0o777, 0
		}
	}
	return 0, unix.EACCES
}
