//go:build !linux

package confine

// HostRAM is unknown off Linux (no backend mounts a tmpfs there).
func HostRAM() int64 { return 0 }
