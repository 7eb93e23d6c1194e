package domainnet

import (
	"os"

	"github.com/ringfence/ringfence/internal/confine/domainnet/sandboxnet"
)

// Serve is sandboxnet.Serve: the in-namespace side, run by the sandbox's
// pid 1 (the bwrap exec shim calls it from here; the linux init links
// package sandboxnet directly).
func Serve(spec Spec, handoff *os.File) error { return sandboxnet.Serve(spec, handoff) }

// LoopbackUp is sandboxnet.LoopbackUp.
func LoopbackUp() error { return sandboxnet.LoopbackUp() }
