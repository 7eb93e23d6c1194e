package seccomp

import (
	"slices"
	"testing"
)

// FuzzGuardFilter checks what GuardCreate changes, and that it changes
// nothing else: on any syscall outside the creating set, the verdict is
// the one the filter without it gives.
func FuzzGuardFilter(f *testing.F) {
	f.Add(uint8(0), false, int32(257), uint64(0), uint64(0x40))
	f.Add(uint8(0), true, int32(2), uint64(0x41), uint64(0))
	f.Add(uint8(1), false, int32(56), uint64(1<<32), uint64(0x40))
	f.Add(uint8(1), true, int32(437), uint64(0), uint64(0))
	f.Add(uint8(0), false, int32(165), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, archIdx uint8, deny bool, n int32, a1, a2 uint64) {
		goarch := []string{"amd64", "arm64"}[archIdx%2]
		d := data{nr: n, arch: targets[goarch].audit, args: [6]uint64{a2, a1, a2, a1, a2, a1}}
		verdict := func(guard bool) uint32 {
			prog, err := Build(Options{Arch: goarch, DenyUnixConnect: deny, GuardCreate: guard})
			if err != nil {
				t.Fatal(err)
			}
			v, err := run(prog, d)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		got, without := verdict(true), verdict(false)
		name := ""
		for s, v := range targets[goarch].table {
			if int32(v) == n {
				name = s
			}
		}
		// A set-id creation mode is refused before the guard sees the call
		// (meta.go: no file starts out set-id), whatever GuardCreate says.
		setid := func(flags, mode uint64, needFlags bool) bool {
			return (!needFlags || uint32(flags)&(oCreat|oTmpfileBit) != 0) && uint32(mode)&(sISUID|sISGID) != 0
		}
		switch {
		case name == "open" && setid(d.args[1], d.args[2], true), name == "openat" && setid(d.args[2], d.args[3], true),
			(name == "creat" || name == "mknod") && setid(0, d.args[1], false), name == "mknodat" && setid(0, d.args[2], false):
			expect(t, name+" with a set-id mode", got, ActionEPERM)
		case name == "openat2":
			expect(t, name, got, ActionENOSYS)
		case name == "open" && uint32(a1)&oCreat != 0, name == "openat" && uint32(a2)&oCreat != 0,
			slices.Contains(creating, name):
			expect(t, name, got, ActionNotify)
		default:
			expect(t, "unguarded "+name, got, without)
		}
	})
}
