package confine

import "golang.org/x/sys/unix"

// HostRAM is the host's total memory in bytes, or 0 when unknown.
func HostRAM() int64 {
	var si unix.Sysinfo_t
	if err := unix.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
