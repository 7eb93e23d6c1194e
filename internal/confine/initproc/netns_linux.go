package initproc

import (
	"os"

	"github.com/ringfence/ringfence/internal/confine/domainnet/sandboxnet"
	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"golang.org/x/sys/unix"
)

// startProxy runs the in-namespace side of the domains network
// (sandboxnet.Serve) on HandoffFD. It runs while the init still holds its
// namespace's capabilities (routes, ports below 1024); the listeners then
// serve from the init's other threads, which hold no capability once
// privileges are dropped and never run the command.
func startProxy(spec *ProxySpec) error {
	return sandboxnet.Serve(*spec, os.NewFile(HandoffFD, "handoff"))
}

func loopbackUp() error { return sandboxnet.LoopbackUp() }

// denyVsock loads FamilyFilter(AF_VSOCK) on this (the main) thread, which
// the command is forked from and inherits it from.
func denyVsock() error {
	vsock, err := FamilyFilter(unix.AF_VSOCK)
	if err != nil {
		return err
	}
	_, err = seccomp.Install(vsock, seccomp.ThisThread)
	return err
}

// DropPrivileges is what the init does before the command runs (locked
// securebits, empty bounding set, no capability on any thread, not
// dumpable), for another sandbox pid 1 that held capabilities for its
// setup (bwrap's exec shim under the domains network). Call it on the
// locked thread the command is forked from.
func DropPrivileges() error { return dropPrivileges() }
