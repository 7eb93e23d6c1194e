package shim

import (
	"fmt"
	"os"

	"github.com/ringfence/ringfence/internal/confine/domainnet/sandboxnet"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// startProxy hosts the domains network's in-namespace side in the shim
// (sandboxnet.Serve: lo's local default routes, the HTTP, SOCKS5, capture
// and DNS listeners, each accepted connection handed to the supervisor on
// fd), then drops the capabilities bwrap added for it (--cap-add
// CAP_NET_ADMIN, CAP_NET_BIND_SERVICE, CAP_SETPCAP): locked securebits,
// an empty bounding set, no capability on any thread — the same drop the
// linux init makes. It runs on the locked thread the command is forked
// from, before the unix-socket filter (whose notifications the route
// request would otherwise wait on) and before the command exists; the
// listeners then serve from goroutines that hold no capability.
//
// It fails closed: if the network cannot be set up, or a capability
// cannot be dropped, the command is not started.
func startProxy(fd int) error {
	if err := sandboxnet.Serve(sandboxnet.Spec{}, os.NewFile(uintptr(fd), "handoff")); err != nil {
		return err
	}
	if err := initproc.DropPrivileges(); err != nil {
		return fmt.Errorf("dropping the setup's capabilities: %w", err)
	}
	return nil
}
