package seccomp

import (
	"slices"
	"testing"
)

// TestMetaTable interprets the set-id, metadata, vsock and datagram rules
// on both architectures, under every option that changes them.
func TestMetaTable(t *testing.T) {
	deny := Options{DenyUnixConnect: true}
	guard := Options{GuardCreate: true}
	meta := Options{DenyUnixConnect: true, GuardMeta: true}
	leave := Options{LeaveSetGID: true}
	const vsock, inet, unixDom = 40, 2, 1
	const eafnosupport = retErrno | errEAFNOSUPPORT
	type c = tcase
	cases := []c{
		{name: "socket vsock", sys: "socket", args: [6]uint64{vsock, 1}, action: eafnosupport},
		{name: "socket vsock dgram", sys: "socket", args: [6]uint64{vsock, 2}, action: eafnosupport},
		{name: "socket vsock high garbage", sys: "socket", args: [6]uint64{1<<40 | vsock, 1}, action: eafnosupport},
		{name: "socketpair vsock", sys: "socketpair", args: [6]uint64{vsock, 1}, action: eafnosupport},
		{name: "socket vsock supervised", sys: "socket", opts: meta, args: [6]uint64{vsock, 1}, action: eafnosupport},
		{name: "socket inet", sys: "socket", args: [6]uint64{inet, 1}, action: ActionAllow},
		{name: "socket unix", sys: "socket", args: [6]uint64{unixDom, 2}, action: ActionAllow},
		{name: "socket vsock only in type", sys: "socket", args: [6]uint64{inet, vsock}, action: ActionAllow},

		{name: "fchmodat 0755", sys: "fchmodat", args: [6]uint64{0, 0, 0o755}, action: ActionAllow},
		{name: "fchmodat 4755", sys: "fchmodat", args: [6]uint64{0, 0, 0o4755}, action: ActionEPERM},
		{name: "fchmodat 4755 supervised", sys: "fchmodat", opts: deny, args: [6]uint64{0, 0, 0o4755}, action: ActionEPERM},
		{name: "fchmodat 4755 leave", sys: "fchmodat", opts: leave, args: [6]uint64{0, 0, 0o4755}, action: ActionEPERM},
		{name: "fchmodat 6755 leave", sys: "fchmodat", opts: leave, args: [6]uint64{0, 0, 0o6755}, action: ActionEPERM},
		{name: "fchmodat 2775 no supervisor", sys: "fchmodat", args: [6]uint64{0, 0, 0o2775}, action: ActionEPERM},
		{name: "fchmodat 2775 supervised", sys: "fchmodat", opts: deny, args: [6]uint64{0, 0, 0o2775}, action: ActionNotify},
		{name: "fchmodat 2775 guard only", sys: "fchmodat", opts: guard, args: [6]uint64{0, 0, 0o2775}, action: ActionNotify},
		{name: "fchmodat 2775 leave", sys: "fchmodat", opts: leave, args: [6]uint64{0, 0, 0o2775}, action: ActionAllow},
		{name: "fchmodat sticky", sys: "fchmodat", args: [6]uint64{0, 0, 0o1777}, action: ActionAllow},
		{name: "fchmodat 4755 in the flags slot", sys: "fchmodat", args: [6]uint64{0, 0, 0o755, 0o4000}, action: ActionAllow},
		{name: "fchmodat mode high word ignored", sys: "fchmodat", args: [6]uint64{0, 0, 0o4000 << 32}, action: ActionAllow},
		{name: "fchmodat2 4755", sys: "fchmodat2", args: [6]uint64{0, 0, 0o4755, 0x100}, action: ActionEPERM},
		{name: "fchmodat2 2755", sys: "fchmodat2", opts: deny, args: [6]uint64{0, 0, 0o2755, 0x1000}, action: ActionNotify},
		{name: "fchmod 4755", sys: "fchmod", args: [6]uint64{3, 0o4755}, action: ActionEPERM},
		{name: "fchmod 2755", sys: "fchmod", opts: deny, args: [6]uint64{3, 0o2755}, action: ActionNotify},
		{name: "fchmod 0644", sys: "fchmod", opts: deny, args: [6]uint64{3, 0o644}, action: ActionAllow},
		{name: "fchmod 0644 meta", sys: "fchmod", opts: meta, args: [6]uint64{3, 0o644}, action: ActionNotify},
		{name: "fchmodat 0644 meta", sys: "fchmodat", opts: meta, args: [6]uint64{0, 0, 0o644}, action: ActionNotify},
		{name: "fchmodat 4755 meta", sys: "fchmodat", opts: meta, args: [6]uint64{0, 0, 0o4755}, action: ActionEPERM},

		{name: "openat O_CREAT 0644", sys: "openat", args: [6]uint64{0, 0, oCreat, 0o644}, action: ActionAllow},
		{name: "openat O_CREAT 4755", sys: "openat", args: [6]uint64{0, 0, oCreat | 1, 0o4755}, action: ActionEPERM},
		{name: "openat O_CREAT 2755", sys: "openat", args: [6]uint64{0, 0, oCreat | 1, 0o2755}, action: ActionEPERM},
		{name: "openat O_TMPFILE 4755", sys: "openat", args: [6]uint64{0, 0, 0x410002, 0o4755}, action: ActionEPERM},
		{name: "openat O_TMPFILE 4755 guard", sys: "openat", opts: guard, args: [6]uint64{0, 0, 0x410002, 0o4755}, action: ActionEPERM},
		{name: "openat O_TMPFILE 0600 guard", sys: "openat", opts: guard, args: [6]uint64{0, 0, 0x410002, 0o600}, action: ActionAllow},
		{name: "openat O_CREAT 4755 guard", sys: "openat", opts: guard, args: [6]uint64{0, 0, oCreat, 0o4755}, action: ActionEPERM},
		{name: "openat O_CREAT 0644 guard", sys: "openat", opts: guard, args: [6]uint64{0, 0, oCreat, 0o644}, action: ActionNotify},
		{name: "openat read with junk mode", sys: "openat", args: [6]uint64{0, 0, 0, 0o4755}, action: ActionAllow},
		{name: "openat read with junk mode guard", sys: "openat", opts: guard, args: [6]uint64{0, 0, 0, 0o4755}, action: ActionAllow},
		{name: "openat2", sys: "openat2", action: ActionENOSYS},
		{name: "mknodat 4755", sys: "mknodat", args: [6]uint64{0, 0, 0o100000 | 0o4755}, action: ActionEPERM},
		{name: "mknodat 2755", sys: "mknodat", args: [6]uint64{0, 0, 0o100000 | 0o2755}, action: ActionEPERM},
		{name: "mknodat fifo", sys: "mknodat", args: [6]uint64{0, 0, 0o010000 | 0o644}, action: ActionAllow},
		{name: "mknodat fifo guard", sys: "mknodat", opts: guard, args: [6]uint64{0, 0, 0o010000 | 0o644}, action: ActionNotify},
		{name: "mknodat 4755 guard", sys: "mknodat", opts: guard, args: [6]uint64{0, 0, 0o4755}, action: ActionEPERM},
		{name: "mkdirat 2775", sys: "mkdirat", args: [6]uint64{0, 0, 0o2775}, action: ActionAllow},

		{name: "fchownat", sys: "fchownat", action: ActionAllow},
		{name: "fchownat meta", sys: "fchownat", opts: meta, action: ActionNotify},
		{name: "fchown meta", sys: "fchown", opts: meta, action: ActionNotify},
		{name: "utimensat", sys: "utimensat", opts: deny, action: ActionAllow},
		{name: "utimensat meta", sys: "utimensat", opts: meta, action: ActionNotify},
		{name: "setxattr", sys: "setxattr", opts: deny, action: ActionAllow},
		{name: "setxattr meta", sys: "setxattr", opts: meta, action: ActionNotify},
		{name: "fsetxattr meta", sys: "fsetxattr", opts: meta, action: ActionNotify},
		{name: "setxattrat meta", sys: "setxattrat", opts: meta, action: ActionENOSYS},
		{name: "removexattrat meta", sys: "removexattrat", opts: meta, action: ActionENOSYS},
		{name: "setxattrat", sys: "setxattrat", action: ActionAllow},
		{name: "lremovexattr meta", sys: "lremovexattr", opts: meta, action: ActionNotify},
		{name: "getxattr meta", sys: "getxattr", opts: meta, action: ActionAllow},
		{name: "fstat meta", sys: "fstat", opts: meta, action: ActionAllow},

		{name: "sendmsg", sys: "sendmsg", action: ActionAllow},
		{name: "sendmsg supervised", sys: "sendmsg", opts: deny, action: ActionNotify},
		{name: "sendmmsg supervised", sys: "sendmmsg", opts: deny, action: ActionNotify},
		{name: "sendmsg guard only", sys: "sendmsg", opts: guard, action: ActionAllow},
		{name: "write supervised", sys: "write", opts: deny, action: ActionAllow},
	}
	for goarch := range targets {
		for _, c := range cases {
			t.Run(goarch+"/"+c.name, func(t *testing.T) {
				if got := eval(t, goarch, c); got != c.action {
					t.Errorf("got %s, want %s", actionName(got), actionName(c.action))
				}
			})
		}
	}
}

// TestMetaLegacy covers the amd64-only forms.
func TestMetaLegacy(t *testing.T) {
	meta := Options{DenyUnixConnect: true, GuardMeta: true}
	for _, c := range []tcase{
		{sys: "chmod", args: [6]uint64{0, 0o4755}, action: ActionEPERM},
		{sys: "chmod", args: [6]uint64{0, 0o755}, action: ActionAllow},
		{sys: "chmod", opts: meta, args: [6]uint64{0, 0o755}, action: ActionNotify},
		{sys: "chmod", opts: Options{DenyUnixConnect: true}, args: [6]uint64{0, 0o2775}, action: ActionNotify},
		{sys: "creat", args: [6]uint64{0, 0o4755}, action: ActionEPERM},
		{sys: "creat", args: [6]uint64{0, 0o755}, action: ActionAllow},
		{sys: "creat", opts: Options{GuardCreate: true}, args: [6]uint64{0, 0o755}, action: ActionNotify},
		{sys: "mknod", args: [6]uint64{0, 0o104755}, action: ActionEPERM},
		{sys: "open", args: [6]uint64{0, oCreat, 0o4755}, action: ActionEPERM},
		{sys: "open", args: [6]uint64{0, 0, 0o4755}, action: ActionAllow},
		{sys: "chown", opts: meta, action: ActionNotify},
		{sys: "lchown", opts: meta, action: ActionNotify},
		{sys: "utime", opts: meta, action: ActionNotify},
		{sys: "utimes", opts: meta, action: ActionNotify},
		{sys: "futimesat", opts: meta, action: ActionNotify},
		{sys: "chown", action: ActionAllow},
	} {
		if got := eval(t, "amd64", c); got != c.action {
			t.Errorf("%s%v %+v: got %s, want %s", c.sys, c.args[:3], c.opts, actionName(got), actionName(c.action))
		}
	}
}

// TestEntriesFirstWins: no name is dispatched twice (a later comparison
// would be dead code, and a reader could think it decides).
func TestEntriesFirstWins(t *testing.T) {
	for _, opts := range []Options{{}, {DenyUnixConnect: true, GuardCreate: true, GuardMeta: true}} {
		var names []string
		for _, e := range entries(opts) {
			if slices.Contains(names, e.name) {
				t.Errorf("%+v: %s dispatched twice", opts, e.name)
			}
			names = append(names, e.name)
		}
	}
}
