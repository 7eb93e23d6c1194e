//go:build linux && !amd64

package seccomp

// Only amd64 has the legacy path syscalls.

func legacyAttacks() []attack { return nil }
func legacyOrdinary() []check { return nil }
