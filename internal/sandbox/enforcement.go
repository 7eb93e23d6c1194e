package sandbox

import "github.com/ringfence/ringfence/internal/confine"

// The levels of an Enforcement's fields, named here so a caller outside
// this module can write them (they are confine's own types).
type (
	// FilesEnforcement is Enforcement.Files: how completely the command's
	// file effects were held to the policy.
	FilesEnforcement = confine.Files
	// NetworkEnforcement is Enforcement.Network: how completely its
	// network was held to the policy's mode.
	NetworkEnforcement = confine.Net
	// ResourcesEnforcement is Enforcement.Resources: how its resource
	// limits were enforced.
	ResourcesEnforcement = confine.Resources
)

// The enforcement levels (their strings are the stable JSON).
const (
	FilesFull      = confine.FilesFull      // every layer enforced by the kernel
	FilesPartial   = confine.FilesPartial   // some layers are not; Reasons says which
	FilesFenceOnly = confine.FilesFenceOnly // no process confinement; only the in-process fence
	FilesNone      = confine.FilesNone      // not confined (danger-full-access)

	NetworkFull         = confine.NetFull         // the mode held for every program
	NetworkLoopbackOnly = confine.NetLoopbackOnly // only loopback was reachable
	NetworkPartial      = confine.NetPartial      // held for programs that use the proxy; the rest refused
	NetworkNone         = confine.NetNone         // the command reached whatever the host reaches

	ResourcesQuota   = confine.ResourcesQuota   // a cgroup made the kernel refuse to exceed the limits
	ResourcesMonitor = confine.ResourcesMonitor // sampled and stopped once over
	ResourcesNone    = confine.ResourcesNone    // no resource limit was asked for
)
