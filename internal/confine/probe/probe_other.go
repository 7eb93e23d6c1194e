//go:build !linux

package probe

import (
	"os"
	"runtime"
)

// Host probes this machine: off Linux there is no backend, and every
// Linux-only fact is reported as unsupported.
func Host() Report { return Probe(HostSources()) }

// HostSources off Linux know only the platform.
func HostSources() Sources {
	return Sources{
		Uname: func() (string, string, error) { return runtime.GOOS, runtime.GOARCH, nil },
		Euid:  os.Geteuid,
	}
}
