package shim

import "github.com/ringfence/ringfence/internal/entry"

// The exec shim bubblewrap starts as the sandbox's pid 1 is one of the
// binary's entry points (internal/entry).
func init() { entry.Register(Arg, Main) }
