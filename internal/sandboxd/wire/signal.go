package wire

import (
	"syscall"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// MaxStdinChunk is the most one WriteStdin may carry: the server refuses
// more (INVALID_ARGUMENT) — gRPC bounds a message to 4 MiB already; this
// keeps one call from holding a pipe for long — and the client splits a
// larger write into calls of at most this.
const MaxStdinChunk = 1 << 20

// signals are the standard's three signals (SendSignal), both ways.
var signals = []struct {
	pb  pb.Signal
	sys syscall.Signal
}{
	{pb.Signal_SIGNAL_SIGINT, syscall.SIGINT},
	{pb.Signal_SIGNAL_SIGTERM, syscall.SIGTERM},
	{pb.Signal_SIGNAL_SIGKILL, syscall.SIGKILL},
}

// Signal is the signal s names; ok is false for one the standard does not
// carry (SIGNAL_UNSPECIFIED, an unknown number).
func Signal(s pb.Signal) (syscall.Signal, bool) {
	for _, e := range signals {
		if e.pb == s {
			return e.sys, true
		}
	}
	return 0, false
}

// ProtoSignal is sig as the standard names it; ok is false for a signal it
// does not carry.
func ProtoSignal(sig syscall.Signal) (pb.Signal, bool) {
	for _, e := range signals {
		if e.sys == sig {
			return e.pb, true
		}
	}
	return pb.Signal_SIGNAL_UNSPECIFIED, false
}
