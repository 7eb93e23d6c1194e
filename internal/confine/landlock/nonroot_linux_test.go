package landlock

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The backend must hold for a caller that is not root (no capabilities to
// drop, nothing to lock).
func TestAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestAllowedEffects|TestStatusChannel|TestAttacks|TestCommandCannotSignalItsInit|TestInitKilledByCommandIsNeverNeverRan|TestStoppedInitAndKilledSupervisorLeaveNoSurvivors|TestDaemonEndsWithTheCommand|TestExecStageReportsExecFailure|TestCommandHoldsNothingOfTheStage|TestTooLongArgumentIsTheCommandsFailure|TestOrdinaryMeta|TestGitFromNothing|TestReadOnlyPathsHeldByGuard)$")
}
