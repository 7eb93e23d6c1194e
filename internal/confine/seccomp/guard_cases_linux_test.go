package seccomp

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

type attack struct {
	name   string
	script string       // sh -c script, or
	fn     func() error // a precise syscall
	probes []string     // what must not appear; reported as 1 (there) or 0
}

func (a attack) run() string {
	var err error
	if a.fn != nil {
		err = a.fn()
	} else {
		err = exec.Command("sh", "-c", a.script+" 2>/dev/null").Run()
	}
	out := "ok"
	if err != nil {
		out = "failed"
	}
	for _, p := range a.probes {
		out += fmt.Sprintf(",%s:%d", p, b2i(exists(p)))
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// attacks are the ways a command could plant a protected name.
func attacks(py string) []attack {
	bashrc, hooks := []string{".bashrc"}, []string{".git/hooks"}
	list := []attack{
		{name: "redirect", script: "echo x > .bashrc", probes: bashrc},
		{name: "redirect-absolute", script: `echo x > "$PWD/.bashrc"`, probes: bashrc},
		{name: "mkdir", script: "mkdir .claude", probes: []string{".claude"}},
		{name: "mkdir-p-beneath", script: "mkdir -p .claude/x", probes: []string{".claude"}},
		{name: "hooks", script: "mkdir .git && mkdir .git/hooks", probes: []string{".git", ".git/hooks"}},
		{name: "hook-file", script: "mkdir -p .git && echo x > .git/hooks", probes: hooks},
		{name: "symlink", script: "ln -s /etc/passwd .bashrc", probes: bashrc},
		{name: "hardlink", script: "echo hi > f && ln f .bashrc", probes: bashrc},
		{name: "rename-onto", script: "echo hi > f && mv f .bashrc", probes: bashrc},
		{name: "final-symlink", script: "ln -s .bashrc l && echo x > l", probes: bashrc},
		{name: "final-symlink-chain", script: "ln -s .bashrc l1 && ln -s l1 l2 && echo x > l2", probes: bashrc},
		{name: "symlinked-parent", script: "ln -s . self && echo x > self/.bashrc", probes: bashrc},
		{name: "dotdot", script: "mkdir d && echo x > d/../.bashrc", probes: bashrc},
		{name: "hooks-symlinked-parent", script: "mkdir .git && ln -s .git g && mkdir g/hooks", probes: hooks},
		{name: "mkfifo", script: "mkfifo .bashrc", probes: bashrc},
		{name: "gitfile", script: "echo 'gitdir: evil' > .git", probes: []string{".git"}},
		{name: "git-symlink", script: "mkdir -p evil/hooks && ln -s evil .git", probes: []string{".git"}},
		{name: "git-rename-dir", script: "mkdir -p evil/hooks && mv evil .git", probes: hooks},
		// Moving an ancestor away is allowed; a new one is as protected.
		{name: "moved-away-recreated", script: "mkdir .git && mv .git .gitx && mkdir .git && mkdir .git/hooks",
			probes: []string{".gitx", ".git", ".git/hooks"}},
		{name: "openat-dirfd", fn: func() error {
			fd, err := unix.Open(".", unix.O_PATH|unix.O_DIRECTORY, 0)
			if err != nil {
				return err
			}
			defer unix.Close(fd)
			nfd, err := unix.Openat(fd, ".bashrc", unix.O_CREAT|unix.O_WRONLY, 0o644)
			if err == nil {
				unix.Close(nfd)
			}
			return err
		}, probes: bashrc},
	}
	if py != "" {
		list = append(list,
			attack{name: "exchange", script: "mkdir -p .git evil/hooks && " + py + ` -c '
import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
os._exit(0 if l.renameat2(-100, b"evil", -100, b".git", 2) == 0 else 1)'`, probes: hooks},
			attack{name: "tmpfile-link", script: py + ` -c '
import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
p = b"/proc/self/fd/%d" % fd
os._exit(0 if l.linkat(-100, p, -100, b".bashrc", 0x400) == 0 else 1)'`, probes: bashrc},
			attack{name: "tmpfile-empty-path", script: py + ` -c '
import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
os._exit(0 if l.linkat(fd, b"", -100, b".bashrc", 0x1000) == 0 else 1)'`, probes: bashrc},
			attack{name: "mkdirat-dirfd", script: py + ` -c '
import os
os.mkdir(".git")
os.mkdir("hooks", dir_fd=os.open(".git", os.O_RDONLY))'`, probes: hooks},
		)
	}
	return append(list, legacyAttacks()...)
}

type check struct {
	name string
	run  func() string
}

// ordinary is work beside the protected names: the guarded results must
// equal the unguarded ones exactly.
func ordinary() []check {
	errOf := func(err error) string { return errName(err) }
	openc := func(p string, flags int, mode uint32) string {
		fd, err := unix.Open(p, flags, mode)
		if err != nil {
			return errName(err)
		}
		unix.Close(fd)
		return "ok"
	}
	cs := []check{
		{"touch", func() string { return sh("touch a") + " " + modeOf("a") }},
		{"mkdir-p", func() string { return sh("mkdir -p d/e") + " " + modeOf("d") + " " + modeOf("d/e") }},
		{"umask077", func() string {
			old := unix.Umask(0o077)
			defer unix.Umask(old)
			return openc("u", unix.O_CREAT|unix.O_WRONLY, 0o666) + " " + modeOf("u") + " " + errOf(unix.Mkdir("ud", 0o777)) + " " + modeOf("ud") +
				" " + errOf(unix.Mknod("uf", unix.S_IFIFO|0o666, 0)) + " " + modeOf("uf")
		}},
		{"mode-bits", func() string { return openc("m", unix.O_CREAT|unix.O_WRONLY, 0o1755) + " " + modeOf("m") }}, // set-id modes: refused by the filter (TestMetaSupervised)
		{"ln-s", func() string { l, err := os.Readlink(shThen("ln -s a l", "l")); return l + errOf(err) }},
		{"mv", func() string { return sh("mv a b") + fmt.Sprint(exists("a"), exists("b")) }},
		{"ln", func() string { return sh("ln b c") + " nlink=" + nlink("c") }},
		{"excl", func() string { return openc("b", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, 0o644) }},
		{"no-trunc", func() string {
			_ = os.WriteFile("b", []byte("hello"), 0o644)
			return openc("b", unix.O_CREAT|unix.O_WRONLY, 0o644) + " size=" + size("b")
		}},
		{"trunc", func() string {
			return openc("b", unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, 0o644) + " size=" + size("b")
		}},
		{"write-through-fd", writeThroughFd},
		{"cloexec", func() string { return cloexec(unix.O_CLOEXEC) + " " + cloexec(0) }},
		{"dirfd", func() string {
			dfd, err := unix.Open("d", unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(dfd)
			fd, err := unix.Openat(dfd, "x", unix.O_CREAT|unix.O_WRONLY, 0o600)
			if err == nil {
				unix.Close(fd)
			}
			return errOf(err) + " " + errOf(unix.Mkdirat(dfd, "xd", 0o755)) + " " + fmt.Sprint(exists("d/x"), exists("d/xd"))
		}},
		{"symlinked-parent", func() string {
			return sh("ln -s d sd && touch sd/y && mkdir sd/yd") + fmt.Sprint(exists("d/y"), exists("d/yd"))
		}},
		{"dangling-symlink-followed", func() string {
			return sh("ln -s t1 dl && echo x > dl") + fmt.Sprint(exists("t1"))
		}},
		{"excl-on-symlink", func() string { return openc("dl", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, 0o644) }},
		{"nofollow-on-symlink", func() string { return openc("dl", unix.O_CREAT|unix.O_NOFOLLOW|unix.O_WRONLY, 0o644) }},
		{"symlink-loop", func() string {
			_ = unix.Symlink("lb", "la")
			_ = unix.Symlink("la", "lb")
			return openc("la", unix.O_CREAT|unix.O_WRONLY, 0o644)
		}},
		{"fifo", func() string { return sh("mkfifo p") + " " + typeOf("p") }},
		{"mkdir-exists", func() string { return errOf(unix.Mkdir("d", 0o755)) }},
		{"mkdir-trailing-slash", func() string { return errOf(unix.Mkdir("nd/", 0o755)) + fmt.Sprint(exists("nd")) }},
		{"open-missing-dir", func() string { return openc("missing/x", unix.O_CREAT|unix.O_WRONLY, 0o644) }},
		{"open-dir-slash", func() string { return openc("d/", unix.O_CREAT|unix.O_WRONLY, 0o644) }},
		{"open-not-dir", func() string { return openc("b/x", unix.O_CREAT|unix.O_WRONLY, 0o644) }},
		{"open-dot", func() string { return openc(".", unix.O_CREAT|unix.O_RDONLY, 0o644) }},
		{"rename-missing", func() string { return errOf(unix.Rename("nothere", "z")) }},
		{"rename-noreplace", func() string {
			return errOf(unix.Renameat2(unix.AT_FDCWD, "b", unix.AT_FDCWD, "c", unix.RENAME_NOREPLACE))
		}},
		{"rename-exchange", func() string {
			_ = os.WriteFile("x1", []byte("1"), 0o644)
			_ = os.WriteFile("x2", []byte("22"), 0o644)
			return errOf(unix.Renameat2(unix.AT_FDCWD, "x1", unix.AT_FDCWD, "x2", unix.RENAME_EXCHANGE)) + " " + size("x1") + size("x2")
		}},
		{"symlink-exists", func() string { return errOf(unix.Symlink("a", "b")) }},
		{"link-exists", func() string { return errOf(unix.Link("b", "c")) }},
		{"link-bad-flags", func() string { return errOf(unix.Linkat(unix.AT_FDCWD, "b", unix.AT_FDCWD, "q", 0x8)) }},
		{"bad-dirfd", func() string { return errOf(unix.Mkdirat(999, "q", 0o755)) }},
		{"file-as-dirfd", func() string {
			fd, _ := unix.Open("b", unix.O_RDONLY, 0)
			defer unix.Close(fd)
			return errOf(unix.Mkdirat(fd, "q", 0o755))
		}},
		{"bad-pointer", badPointer},
		{"tmpfile-link", func() string {
			fd, err := unix.Open(".", unix.O_TMPFILE|unix.O_WRONLY, 0o600)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(fd)
			e1 := unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), unix.AT_FDCWD, "tl", unix.AT_SYMLINK_FOLLOW)
			fd2, err := unix.Open(".", unix.O_TMPFILE|unix.O_WRONLY, 0o600)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(fd2)
			e2 := unix.Linkat(fd2, "", unix.AT_FDCWD, "te", unix.AT_EMPTY_PATH)
			return errName(e1) + " " + errName(e2) + " " + modeOf("tl") + " " + modeOf("te")
		}},
		{"dev-stdout", func() string { return shOut("echo hi > /dev/stdout") }},
		{"dev-fd", func() string { return shOut("exec 5>o5; echo hi > /dev/fd/5; cat o5") }},
		{"proc-self-fd", func() string { return shOut("exec 6>o6; echo hi > /proc/self/fd/6; cat o6") }},
		{"proc-self-cwd", func() string { return shOut("mkdir -p pd && cd pd && echo hi > /proc/self/cwd/pc && cat pc") }},
		{"proc-thread-self-fd", func() string { return shOut("exec 7>o7; echo hi > /proc/thread-self/fd/7; cat o7") }},
	}
	if os.Getenv(guardedEnv) == "1" { // root creates devices unguarded
		cs = append(cs, check{"mknod-device", func() string { return errOf(unix.Mknod("dev", unix.S_IFCHR|0o600, 0x0103)) }})
	}
	return append(cs, legacyOrdinary()...)
}

func sh(script string) string {
	if err := exec.Command("sh", "-c", script).Run(); err != nil {
		return "failed"
	}
	return "ok"
}

// procFdAttack reopens another process's descriptor through
// /proc/PID/fd/N with O_CREAT: through the supervisor, that must not reach
// the supervisor's own descriptors.
func procFdAttack(pidfd string) string {
	pid, fd, ok := strings.Cut(pidfd, ":")
	if !ok {
		return "no-secret"
	}
	f, err := unix.Open("/proc/"+pid+"/fd/"+fd, unix.O_CREAT|unix.O_RDONLY, 0o644)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(f)
	b := make([]byte, 16)
	n, _ := unix.Read(f, b)
	if string(b[:max(n, 0)]) == "secret" {
		return "leaked"
	}
	return "other-file"
}

// shOut runs script and returns its output, or "failed".
func shOut(script string) string {
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		return "failed"
	}
	return strings.TrimSpace(string(out))
}

func shThen(script, p string) string { sh(script); return p }

func stat(p string) *unix.Stat_t {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return nil
	}
	return &st
}

func modeOf(p string) string {
	if st := stat(p); st != nil {
		return fmt.Sprintf("%o", st.Mode&0o7777)
	}
	return "none"
}

func typeOf(p string) string {
	if st := stat(p); st != nil {
		return fmt.Sprintf("%o", st.Mode&unix.S_IFMT)
	}
	return "none"
}

func nlink(p string) string {
	if st := stat(p); st != nil {
		return fmt.Sprint(st.Nlink)
	}
	return "none"
}

func size(p string) string {
	if st := stat(p); st != nil {
		return fmt.Sprint(st.Size)
	}
	return "none"
}

func writeThroughFd() string {
	fd, err := unix.Open("w", unix.O_CREAT|unix.O_RDWR|unix.O_TRUNC, 0o644)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte("data")); err != nil {
		return errName(err)
	}
	b, _ := os.ReadFile("w")
	return fmt.Sprintf("fd>2=%v %s", fd > 2, b)
}

func cloexec(flag int) string {
	fd, err := unix.Open("ce", unix.O_CREAT|unix.O_WRONLY|flag, 0o644)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(fd)
	v, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		return errName(err)
	}
	return fmt.Sprint(v&unix.FD_CLOEXEC != 0)
}

// badPointer passes a path pointer the target does not own.
func badPointer() string {
	_, _, e := unix.Syscall6(unix.SYS_OPENAT, atFdcwd, 8, unix.O_CREAT|unix.O_WRONLY, 0o644, 0, 0)
	_, _, e2 := unix.Syscall(unix.SYS_MKDIRAT, atFdcwd, 8, 0o755)
	return unix.ErrnoName(e) + " " + unix.ErrnoName(e2)
}
