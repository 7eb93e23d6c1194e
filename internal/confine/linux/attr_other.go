//go:build !linux

package linux

import "syscall"

func sysProcAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

func withBindService(*syscall.SysProcAttr) {}
