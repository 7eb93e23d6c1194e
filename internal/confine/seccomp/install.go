package seccomp

import (
	"fmt"

	"github.com/ringfence/ringfence/policy"
)

// Flag changes how Install loads a filter.
type Flag uint

const (
	// ThisThread loads the filter on the calling OS thread only, instead
	// of synchronising it onto every thread of the process. The caller
	// must hold runtime.LockOSThread and never unlock it (let the
	// goroutine exit locked so the thread dies), then start the command
	// from that goroutine: Go's fork runs on the calling thread, so the
	// child inherits the filter while the caller's other threads — the
	// unix-socket supervisor among them — stay unfiltered.
	ThisThread Flag = 1 << iota
)

// ErrNotSupported is returned by Install and SuperviseUnix on systems
// other than Linux. It wraps policy.ErrUnavailable: never run unfiltered.
var ErrNotSupported = fmt.Errorf("%w: seccomp is Linux-only", policy.ErrUnavailable)
