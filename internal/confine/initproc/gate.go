package initproc

import (
	"errors"
	"strconv"
	"strings"
)

// An init can be started gated: os.Args[2] is GateArg(fd), and descriptor
// fd is the read end of a pipe whose write end the supervisor keeps. A gated
// init takes its spec and builds its whole confinement at once, but starts
// nothing of the command (and serves no session request) until the
// supervisor writes GateOpen there, which it does once it has made sure
// the init is under its limits (its cgroup: the init is born there, and
// moved only where it is not; a move waits for an RCU grace period, 5–20
// ms on the shared test machine, which the set-up then overlaps). A gate that closes
// without GateOpen (the supervisor died or gave up) fails the set-up: the
// command never starts outside its limits.

// gatePrefix begins the gate argument; the descriptor number follows.
const gatePrefix = "gate="

// GateOpen is the byte that admits a gated init.
const GateOpen = 'g'

// maxGateFD bounds the descriptor a gate may name: the init's descriptors
// are a handful (spec, status, handoff, control, gate).
const maxGateFD = 64

// GateArg is the argument (os.Args[2]) that starts an init gated on fd.
func GateArg(fd int) string { return gatePrefix + strconv.Itoa(fd) }

// ParseGate reads the init's arguments after Arg. It returns the gate's
// descriptor and true for a gated init, false when the arguments name no
// gate, and an error for a gate argument it cannot trust (the init then
// fails its set-up rather than start ungated).
func ParseGate(args []string) (fd int, gated bool, err error) {
	if len(args) == 0 || !strings.HasPrefix(args[0], gatePrefix) {
		return 0, false, nil
	}
	if len(args) > 1 {
		return 0, false, errors.New("unexpected arguments after the gate")
	}
	num := strings.TrimPrefix(args[0], gatePrefix)
	// Digits only: Atoi would take a sign, and "07" is not how GateArg
	// writes 7.
	if num == "" || len(num) > 2 || strings.Trim(num, "0123456789") != "" || (num[0] == '0') {
		return 0, false, errors.New("malformed gate descriptor")
	}
	fd, _ = strconv.Atoi(num)
	if fd <= ImageFD || fd >= maxGateFD {
		return 0, false, errors.New("gate descriptor out of range")
	}
	return fd, true, nil
}
