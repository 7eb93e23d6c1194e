package seccomp

import "testing"

// FuzzMetaFilter builds random Options (every flag) and checks the set-id,
// vsock and openat2 rules no option combination may weaken, and that
// nothing is sent to a supervisor that is not there.
func FuzzMetaFilter(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(2), uint64(0), uint64(0), uint64(0o4755))
	f.Add(uint8(1), uint8(0xff), uint8(10), uint64(0), uint64(0x40), uint64(0o2755))
	f.Add(uint8(0), uint8(8), uint8(0), uint64(40), uint64(1), uint64(0))
	f.Add(uint8(0), uint8(8), uint8(1), uint64(3), uint64(0o2755), uint64(0))
	f.Fuzz(func(t *testing.T, archIdx, flags, nameIdx uint8, a0, a1, a2 uint64) {
		goarch := []string{"amd64", "arm64"}[archIdx%2]
		names := append([]string{"socket", "fchmod", "fchmodat", "fchmodat2", "chmod", "socketpair", "openat2",
			"creat", "mknod", "mknodat", "openat", "open", "sendmsg", "sendmmsg", "connect", "sendto"},
			append(append(ownerCalls, timeCalls...), xattrCalls...)...)
		name := names[int(nameIdx)%len(names)]
		opts := Options{Arch: goarch, DenyUnixConnect: flags&1 != 0, GuardCreate: flags&2 != 0,
			GuardMeta: flags&4 != 0, LeaveSetGID: flags&8 != 0, AllowPtrace: flags&16 != 0}
		nr, ok := targets[goarch].table[name]
		if !ok {
			return
		}
		prog, err := Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		args := [6]uint64{a0, a1, a2, a0, a1, a2}
		got, err := run(prog, data{nr: int32(nr), arch: targets[goarch].audit, args: args})
		if err != nil {
			t.Fatal(err)
		}
		if got == ActionNotify && !opts.hasListener() {
			t.Fatalf("%s: notify without a listener", name)
		}
		mode := map[string]int{"chmod": 1, "fchmod": 1, "fchmodat": 2, "fchmodat2": 2}
		create := map[string]int{"creat": 1, "mknod": 1, "mknodat": 2}
		switch {
		case name == "socket" || name == "socketpair":
			if uint32(a0) == afVsock {
				expect(t, "vsock", got, retErrno|errEAFNOSUPPORT)
			}
		case name == "openat2":
			expect(t, "openat2", got, ActionENOSYS)
		case mode[name] > 0:
			m := uint32(args[mode[name]])
			switch {
			case m&sISUID != 0:
				expect(t, name+" S_ISUID", got, ActionEPERM)
			case m&sISGID != 0 && got == ActionAllow && !opts.LeaveSetGID:
				t.Fatalf("%s S_ISGID allowed unchecked", name)
			case opts.GuardMeta && got == ActionAllow:
				t.Fatalf("%s allowed under GuardMeta", name)
			}
		case create[name] > 0:
			if uint32(args[create[name]])&(sISUID|sISGID) != 0 {
				expect(t, name+" set-id mode", got, ActionEPERM)
			}
		case name == "open" || name == "openat":
			i := map[string]int{"open": 1, "openat": 2}[name]
			if uint32(args[i])&(oCreat|oTmpfileBit) != 0 && uint32(args[i+1])&(sISUID|sISGID) != 0 {
				expect(t, name+" set-id creation", got, ActionEPERM)
			}
		}
		if opts.GuardMeta && got == ActionAllow {
			for _, group := range [][]string{ownerCalls, timeCalls, xattrCalls} {
				for _, g := range group {
					if g == name {
						t.Fatalf("%s allowed under GuardMeta", name)
					}
				}
			}
		}
	})
}
