package initproc

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// console binds the terminal on the init's standard descriptors, if any, at
// <dev>/console, as bwrap does: the view's /dev/pts is a fresh devpts
// instance that cannot hold it, and without a name inside the view
// ttyname() — `tty`, ssh, gpg, REPLs — fails on a terminal the command
// does hold. It is only ever the terminal the supervisor opened for this
// command (run never passes a terminal of the user's), and the node bound
// is checked to be that very terminal (same device and inode), so no other
// terminal of the host can appear.
func (vw *view) console(devfd int, target string) error {
	fd, path, ok := stdioTerminal()
	if !ok {
		return nil
	}
	var want, got unix.Stat_t
	if unix.Fstat(fd, &want) != nil {
		return nil
	}
	src, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return nil // not reachable by name here: the command keeps the descriptor, unnamed
	}
	defer unix.Close(src)
	if unix.Fstat(src, &got) != nil || !sameTerminal(want, got) {
		return nil
	}
	if err := setattr(src, false, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, 0); err != nil {
		return err
	}
	if err := unix.Mknodat(devfd, "console", unix.S_IFREG|0o600, 0); err != nil {
		return err
	}
	return vw.mountAt(src, target+"/console", false, false)
}

// stdioTerminal finds the first of descriptors 0, 1, 2 that is a terminal
// on a devpts path, with that path as this (pre-pivot) namespace names it.
func stdioTerminal() (int, string, bool) {
	for fd := range 3 {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err != nil {
			continue
		}
		path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err == nil && ptsPath(path) {
			return fd, path, true
		}
	}
	return 0, "", false
}

// ptsPath accepts /dev/pts/N only.
func ptsPath(p string) bool {
	n, ok := strings.CutPrefix(p, "/dev/pts/")
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sameTerminal reports whether two stats are one character device.
func sameTerminal(a, b unix.Stat_t) bool {
	return a.Mode&unix.S_IFMT == unix.S_IFCHR && b.Mode&unix.S_IFMT == unix.S_IFCHR &&
		a.Rdev == b.Rdev && a.Dev == b.Dev && a.Ino == b.Ino
}
