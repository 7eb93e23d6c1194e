package seccomp

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The legacy path syscalls only amd64 has (arm64 has the *at forms only).

func cstr(s string) uintptr {
	p, _ := unix.BytePtrFromString(s)
	return uintptr(unsafe.Pointer(p))
}

func legacy(nr uintptr, args ...uintptr) error {
	a := append(args, 0, 0, 0)
	r, _, e := unix.Syscall(nr, a[0], a[1], a[2])
	if e != 0 {
		return e
	}
	if nr == unix.SYS_OPEN || nr == unix.SYS_CREAT {
		unix.Close(int(r))
	}
	return nil
}

func withFile(f func() error) func() error {
	return func() error {
		if err := os.WriteFile("f", []byte("hi"), 0o644); err != nil {
			return err
		}
		return f()
	}
}

func legacyAttacks() []attack {
	bashrc := []string{".bashrc"}
	return []attack{
		{name: "sys-open", fn: func() error {
			return legacy(unix.SYS_OPEN, cstr(".bashrc"), unix.O_CREAT|unix.O_WRONLY, 0o644)
		}, probes: bashrc},
		{name: "sys-creat", fn: func() error { return legacy(unix.SYS_CREAT, cstr(".bashrc"), 0o644) }, probes: bashrc},
		{name: "sys-mkdir", fn: func() error { return legacy(unix.SYS_MKDIR, cstr(".claude"), 0o755) }, probes: []string{".claude"}},
		{name: "sys-mknod", fn: func() error { return legacy(unix.SYS_MKNOD, cstr(".bashrc"), unix.S_IFREG|0o644, 0) }, probes: bashrc},
		{name: "sys-symlink", fn: func() error { return legacy(unix.SYS_SYMLINK, cstr("x"), cstr(".bashrc")) }, probes: bashrc},
		{name: "sys-link", fn: withFile(func() error { return legacy(unix.SYS_LINK, cstr("f"), cstr(".bashrc")) }), probes: bashrc},
		{name: "sys-rename", fn: withFile(func() error { return legacy(unix.SYS_RENAME, cstr("f"), cstr(".bashrc")) }), probes: bashrc},
	}
}

func legacyOrdinary() []check {
	do := func(nr uintptr, args ...uintptr) string { return errName(legacy(nr, args...)) }
	return []check{
		{"sys-creat", func() string { return do(unix.SYS_CREAT, cstr("lc"), 0o666) + " " + modeOf("lc") }},
		{"sys-open", func() string {
			return do(unix.SYS_OPEN, cstr("lo"), unix.O_CREAT|unix.O_WRONLY, 0o666) + " " + modeOf("lo")
		}},
		{"sys-mkdir", func() string { return do(unix.SYS_MKDIR, cstr("lm"), 0o777) + " " + modeOf("lm") }},
		{"sys-mknod", func() string { return do(unix.SYS_MKNOD, cstr("ln"), unix.S_IFREG|0o666, 0) + " " + typeOf("ln") }},
		{"sys-symlink", func() string { return do(unix.SYS_SYMLINK, cstr("lc"), cstr("ls")) + " " + typeOf("ls") }},
		{"sys-link", func() string { return do(unix.SYS_LINK, cstr("lc"), cstr("ll")) + " " + nlink("lc") }},
		{"sys-rename", func() string { return do(unix.SYS_RENAME, cstr("ll"), cstr("lr")) + " " + nlink("lr") }},
	}
}
