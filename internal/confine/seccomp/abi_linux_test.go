package seccomp

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestABIConstants checks the values abi.go writes out against x/sys/unix.
func TestABIConstants(t *testing.T) {
	pairs := []struct {
		name      string
		ours, sys uint64
	}{
		{"EPERM", errEPERM, uint64(unix.EPERM)}, {"ENOSYS", errENOSYS, uint64(unix.ENOSYS)},
		{"AF_UNIX", afUnix, unix.AF_UNIX}, {"O_CREAT", oCreat, unix.O_CREAT}, {"O_WRONLY", oWronly, unix.O_WRONLY}, {"O_RDWR", oRdwr, unix.O_RDWR}, {"O_TRUNC", oTrunc, unix.O_TRUNC}, {"TIOCSTI", tiocsti, unix.TIOCSTI}, {"TIOCLINUX", tioclinux, unix.TIOCLINUX},
		{"TCGETS", tcgets, unix.TCGETS},
		{"CLONE_NEWNS", cloneNewNS, unix.CLONE_NEWNS}, {"CLONE_NEWCGROUP", cloneNewCgroup, unix.CLONE_NEWCGROUP},
		{"CLONE_NEWUTS", cloneNewUTS, unix.CLONE_NEWUTS}, {"CLONE_NEWIPC", cloneNewIPC, unix.CLONE_NEWIPC},
		{"CLONE_NEWUSER", cloneNewUser, unix.CLONE_NEWUSER}, {"CLONE_NEWPID", cloneNewPID, unix.CLONE_NEWPID},
		{"CLONE_NEWNET", cloneNewNet, unix.CLONE_NEWNET}, {"CLONE_VM", cloneVM, unix.CLONE_VM},
		{"CLONE_FS", cloneFS, unix.CLONE_FS}, {"CLONE_FILES", cloneFiles, unix.CLONE_FILES},
		{"CLONE_SIGHAND", cloneSighand, unix.CLONE_SIGHAND}, {"CLONE_VFORK", cloneVfork, unix.CLONE_VFORK},
		{"CLONE_THREAD", cloneThread, unix.CLONE_THREAD}, {"CLONE_SYSVSEM", cloneSysvsem, unix.CLONE_SYSVSEM},
		{"BPF_LD", bpfLD, unix.BPF_LD}, {"BPF_W", bpfW, unix.BPF_W}, {"BPF_ABS", bpfABS, unix.BPF_ABS},
		{"BPF_JMP", bpfJMP, unix.BPF_JMP}, {"BPF_JA", bpfJA, unix.BPF_JA}, {"BPF_JEQ", bpfJEQ, unix.BPF_JEQ},
		{"BPF_JGT", bpfJGT, unix.BPF_JGT}, {"BPF_JGE", bpfJGE, unix.BPF_JGE}, {"BPF_JSET", bpfJSET, unix.BPF_JSET},
		{"BPF_K", bpfK, unix.BPF_K}, {"BPF_RET", bpfRET, unix.BPF_RET}, {"BPF_MAXINSNS", bpfMaxInsns, unix.BPF_MAXINSNS},
		{"RET_KILL_PROCESS", retKillProcess, unix.SECCOMP_RET_KILL_PROCESS},
		{"RET_USER_NOTIF", retUserNotif, unix.SECCOMP_RET_USER_NOTIF}, {"RET_ERRNO", retErrno, unix.SECCOMP_RET_ERRNO},
		{"RET_ALLOW", retAllow, unix.SECCOMP_RET_ALLOW}, {"RET_ACTION_FULL", retActionFull, unix.SECCOMP_RET_ACTION_FULL},
		{"sizeof(seccomp_notif)", uint64(unsafe.Sizeof(notif{})), 80},
		{"sizeof(seccomp_notif_resp)", uint64(unsafe.Sizeof(notifResp{})), 24},
	}
	for _, p := range pairs {
		if p.ours != p.sys {
			t.Errorf("%s: ours %#x, x/sys/unix %#x", p.name, p.ours, p.sys)
		}
	}
}
