package bwrap_test

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// attack exits 0 when the attempt succeeded, 3 when it was refused.
func attack(args []string) int {
	switch args[0] {
	case "connect": // connect NETWORK ADDRESS
		c, err := net.Dial(args[1], args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		_, _ = c.Write([]byte("attack\n"))
		_ = c.Close()
		return 0
	case "udp": // udp ADDRESS: send one datagram (success is judged by the receiver)
		c, err := net.Dial("udp", args[1])
		if err != nil {
			return 3
		}
		_, _ = c.Write([]byte("attack"))
		_ = c.Close()
		return 0
	case "selfsock": // selfsock PATH: listen on PATH and connect to it
		l, err := net.Listen("unix", args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		defer l.Close()
		c, err := net.Dial("unix", args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		_ = c.Close()
		return 0
	case "kill": // kill PID
		pid, _ := strconv.Atoi(args[1])
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		return 0
	case "personality": // ADDR_NO_RANDOMIZE weakens the process's own ASLR
		if _, _, errno := syscall.Syscall(syscall.SYS_PERSONALITY, 0x0040000, 0, 0); errno != 0 {
			fmt.Fprintln(os.Stderr, errno)
			return 3
		}
		return 0
	case "fds": // fds: succeeds if any descriptor above 2 is open
		entries, _ := os.ReadDir("/proc/self/fd")
		for _, e := range entries {
			fd, _ := strconv.Atoi(e.Name())
			if link, err := os.Readlink("/proc/self/fd/" + e.Name()); fd > 2 && err == nil && link != "/proc/self/fd" && !isDirFD(link) {
				fmt.Println("open:", fd, link)
				return 0
			}
		}
		return 3
	}
	return 2
}

// isDirFD is a descriptor the helper itself holds: ReadDir's on
// /proc/<pid>/fd, and the Go runtime's on the cgroup CPU limit files.
func isDirFD(link string) bool {
	var pid int
	_, err := fmt.Sscanf(link, "/proc/%d/fd", &pid)
	return err == nil || strings.HasPrefix(link, "/sys/fs/cgroup/")
}
