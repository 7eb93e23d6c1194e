//go:build !linux

package serveproc

import "syscall"

// dieWithParent: no parent-death signal outside Linux (ringfence serve
// confines only there); the caller stops its servers itself.
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
