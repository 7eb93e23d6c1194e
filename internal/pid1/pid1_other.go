//go:build !linux

package pid1

// Is is false off Linux: ringfence runs as a container's pid 1 only there.
func Is() bool { return false }

// Main is never called off Linux.
func Main() int { return 125 }
