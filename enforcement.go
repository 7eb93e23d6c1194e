package ringfence

import "github.com/ringfence/ringfence/internal/sandbox"

// The types of Enforcement's fields.
type (
	// FilesEnforcement is Enforcement.Files: how completely the command's
	// file effects were held to the policy.
	FilesEnforcement = sandbox.FilesEnforcement
	// NetworkEnforcement is Enforcement.Network: how completely its
	// network was held to the policy's mode.
	NetworkEnforcement = sandbox.NetworkEnforcement
	// ResourcesEnforcement is Enforcement.Resources: how its resource
	// limits were enforced.
	ResourcesEnforcement = sandbox.ResourcesEnforcement
)

// The enforcement levels; the strings are the stable JSON.
const (
	FilesFull      = sandbox.FilesFull      // every layer enforced by the kernel
	FilesPartial   = sandbox.FilesPartial   // some layers are not; Reasons says which
	FilesFenceOnly = sandbox.FilesFenceOnly // no process confinement; only the in-process fence
	FilesNone      = sandbox.FilesNone      // not confined (danger-full-access)

	NetworkFull         = sandbox.NetworkFull         // the mode held for every program
	NetworkLoopbackOnly = sandbox.NetworkLoopbackOnly // only loopback was reachable
	NetworkPartial      = sandbox.NetworkPartial      // held for programs that use the proxy; the rest refused
	NetworkNone         = sandbox.NetworkNone         // the command reached whatever the host reaches

	ResourcesQuota   = sandbox.ResourcesQuota   // a cgroup made the kernel refuse to exceed the limits
	ResourcesMonitor = sandbox.ResourcesMonitor // sampled and stopped once over
	ResourcesNone    = sandbox.ResourcesNone    // no resource limit was asked for
)
