package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The backend maps the caller's own uid: the same tests must hold for a
// caller that is not root.
func TestAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestSmoke|TestAllowedEffects|TestStatusChannel|TestLoopbackWorksInside|TestAttacks|TestOrdinaryMeta|TestGitFromNothing|TestPlantedOnPath|TestGateHoldsTheCommandUntilAdmitted|TestGateClosedNeverAdmits|TestSignalBeforeStartEndsTheInit)$")
}
