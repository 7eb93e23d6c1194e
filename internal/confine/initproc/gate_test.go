package initproc

import (
	"strconv"
	"testing"
)

func TestParseGate(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		fd    int
		gated bool
		bad   bool
	}{
		{args: nil},
		{args: []string{}},
		{args: []string{ExecStage}},
		{args: []string{GateArg(6)}, fd: 6, gated: true},
		{args: []string{GateArg(7)}, fd: 7, gated: true},
		{args: []string{GateArg(63)}, fd: 63, gated: true},
		{args: []string{"gate="}, bad: true},
		{args: []string{"gate=5"}, bad: true},  // the init's image
		{args: []string{"gate=4"}, bad: true},  // the status channel
		{args: []string{"gate=3"}, bad: true},  // the spec
		{args: []string{"gate=0"}, bad: true},  // stdin
		{args: []string{"gate=64"}, bad: true}, // out of range
		{args: []string{"gate=-5"}, bad: true},
		{args: []string{"gate=+5"}, bad: true},
		{args: []string{"gate=05"}, bad: true},
		{args: []string{"gate=6 "}, bad: true},
		{args: []string{"gate=6x"}, bad: true},
		{args: []string{"gate=999999999999999999999"}, bad: true},
		{args: []string{GateArg(6), "extra"}, bad: true},
	} {
		fd, gated, err := ParseGate(tc.args)
		if tc.bad {
			if err == nil || gated {
				t.Errorf("ParseGate(%q) = %d, %v, %v: want an error", tc.args, fd, gated, err)
			}
			continue
		}
		if err != nil || fd != tc.fd || gated != tc.gated {
			t.Errorf("ParseGate(%q) = %d, %v, %v: want %d, %v", tc.args, fd, gated, err, tc.fd, tc.gated)
		}
	}
}

// FuzzParseGate: whatever the argument, a gate is either refused or names
// a descriptor above the init's image that GateArg writes back the same.
func FuzzParseGate(f *testing.F) {
	for _, s := range []string{"gate=5", "gate=", "gate=05", "gate=-1", "exec", "gate=63", "gate=64"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		fd, gated, err := ParseGate([]string{arg})
		if err != nil {
			if gated {
				t.Fatalf("%q: gated despite %v", arg, err)
			}
			return
		}
		if !gated {
			return
		}
		if fd <= ImageFD || fd >= maxGateFD || GateArg(fd) != arg || arg != "gate="+strconv.Itoa(fd) {
			t.Fatalf("%q: accepted as descriptor %d", arg, fd)
		}
	})
}
