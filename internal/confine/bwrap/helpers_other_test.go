//go:build !linux

package bwrap_test

// attack has nothing to attack off Linux.
func attack([]string) int { return 2 }
