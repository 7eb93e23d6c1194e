package process

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// landlockTests are the process-service tests that hold on the landlock
// backend too (a session of one-shot runs): Execute, Start with stdin and
// a PTY, signals, shutdown, and the escape attempts with their unconfined
// controls. TestProcessesShareTheSession does not: one-shot runs share no
// private /tmp or loopback (ringfence.OneShotSessionReasons).
const landlockTests = "^(TestExecuteEchoWithOutcomeTrailer|TestExecuteErrors|TestStartStreamsInitOutputExit|TestStartStdin|TestStartPTYAndResize|TestShutdownTermsThenKills|TestAttackWriteOutsideRoot|TestAttackPlantProtectedPath|TestAttackHostLoopback|TestAttackServerEnvironment)$"

// rerunOn runs the tests matching pattern again with the harness on
// backend, as uid (0: as is), from a copy of the test binary that uid can
// execute, under RINGFENCE_REQUIRE_ALL=1 (a skip fails it).
func rerunOn(t *testing.T, backend, pattern string, uid int) {
	if os.Getenv("RF_PROCESS_BACKEND") != "" {
		t.Skip("already rerun")
	}
	inittest.Rerun(t, inittest.RerunOptions{Pattern: pattern, UID: uid, NoSkip: true,
		Env: []string{"RF_PROCESS_BACKEND=" + backend}})
}

func TestProcessServiceOnLandlock(t *testing.T) { rerunOn(t, "landlock", landlockTests, 0) }

func TestProcessServiceOnLandlockAsNonRoot(t *testing.T) {
	rerunOn(t, "landlock", landlockTests, 65534)
}
