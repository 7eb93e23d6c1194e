package seccomp

import (
	"testing"
)

// FuzzFilter builds random Options and runs the program on random input,
// checking the invariants no option may break. Its seed corpus runs as a
// unit test under plain `go test`.
func FuzzFilter(f *testing.F) {
	f.Add(uint8(0), false, false, int32(39), uint32(auditX86_64), uint64(0), uint64(0))
	f.Add(uint8(0), true, true, int32(39), uint32(auditI386), uint64(0), uint64(0))
	f.Add(uint8(1), true, false, int32(220), uint32(auditAArch64), uint64(0x10000000), uint64(0))
	f.Add(uint8(0), false, true, int32(x32Bit|39), uint32(auditX86_64), uint64(0), uint64(0))
	f.Add(uint8(0), true, false, int32(16), uint32(auditX86_64), uint64(0), uint64(1<<33|0x5412))
	f.Fuzz(func(t *testing.T, archIdx uint8, deny, ptrace bool, n int32, a uint32, a0, a1 uint64) {
		goarch := []string{"amd64", "arm64"}[archIdx%2]
		opts := Options{Arch: goarch, DenyUnixConnect: deny, AllowPtrace: ptrace}
		prog, err := Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		got, err := run(prog, data{nr: n, arch: a, args: [6]uint64{a0, a1, a0, a1, a0, a1}})
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, opts, n, a, a0, a1, got)
	})
}

func checkInvariants(t *testing.T, opts Options, n int32, a uint32, a0, a1 uint64, got uint32) {
	t.Helper()
	tgt := targets[opts.Arch]
	name := ""
	for s, v := range tgt.table {
		if int32(v) == n {
			name = s
		}
	}
	switch {
	case a != tgt.audit:
		expect(t, "foreign arch", got, ActionKillProcess)
	case tgt.x32 && n != -1 && uint32(n)&x32Bit != 0:
		expect(t, "x32", got, ActionKillProcess)
	case got == ActionKillProcess:
		t.Errorf("native syscall %d killed", n)
	case got == ActionNotify && !opts.DenyUnixConnect:
		t.Errorf("notify without DenyUnixConnect (nr %d)", n)
	case isRefused(name) && !(opts.AllowPtrace && ptraceGroup[name]):
		expect(t, name, got, ActionEPERM)
	case name == "clone" && uint32(a0)&cloneNewMask != 0:
		expect(t, "clone with namespace flags", got, ActionEPERM)
	case name == "ioctl" && (uint32(a1) == 0x5412 || uint32(a1) == 0x541C):
		expect(t, "terminal injection ioctl", got, ActionEPERM)
	}
}

func isRefused(name string) bool {
	for _, r := range refused {
		if r == name {
			return true
		}
	}
	return false
}

func expect(t *testing.T, what string, got, want uint32) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %s, want %s", what, actionName(got), actionName(want))
	}
}
