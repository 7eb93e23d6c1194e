//go:build !linux

package landlock

// ABI is 0 off Linux: there is no Landlock.
func ABI() int { return 0 }
