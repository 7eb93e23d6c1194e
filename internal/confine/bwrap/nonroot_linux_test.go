package bwrap_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// TestAsNonRoot reruns the attack and behaviour tests as uid 65534: the
// backend must hold for an ordinary user as well as for root (whose uid
// maps to host root, which makes /proc and pid 1 matter more).
func TestAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestFileAttacks|TestMissingProtectedPath|TestNetworkAttacks|TestOwnUnixSockets|"+
		"TestSignalHostProcess|TestLeakedEnvAndDescriptors|TestNestedNamespaceRefused|TestProcWritesRefused|TestPid1Attacks|"+
		"TestPinnedCarveOutParents|TestPinThroughALink|TestDiesWithRingfence|TestRunStatus|TestShimOutlastsSignals|"+
		"TestTreeKill|TestSeccompLoaded|TestMountPathProtectedNames)$")
}
