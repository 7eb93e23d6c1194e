//go:build !linux

package linux

import "syscall"

func sysProcAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

func withBindService(*syscall.SysProcAttr) {}

func handoffPair() ([2]int, error) { return [2]int{}, syscall.ENOSYS }
