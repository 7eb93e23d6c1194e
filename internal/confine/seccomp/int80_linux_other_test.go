//go:build linux && !amd64

package seccomp

func int80Getpid() { panic("no i386 entry point on this architecture") }
