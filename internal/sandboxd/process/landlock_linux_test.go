package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
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
	testenv.NeedRoot(t)
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-landlock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "process.test")
	tmp := filepath.Join(dir, "tmp")
	for _, err := range []error{os.WriteFile(bin, data, 0o755), os.Mkdir(tmp, 0o700),
		os.Chown(tmp, uid, uid), os.Chmod(dir, 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run", pattern, "-test.count=1", "-test.v")
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + tmp, "HOME=" + tmp,
		"RINGFENCE_REQUIRE_ALL=1", "RF_PROCESS_BACKEND=" + backend}
	cmd.Dir = tmp
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	out, err := cmd.CombinedOutput()
	passed := strings.Count(string(out), "--- PASS")
	t.Logf("%s run as uid %d: %d passed", backend, uid, passed)
	if err != nil || passed == 0 || strings.Contains(string(out), "--- SKIP") {
		t.Fatalf("%s run as uid %d failed: %v\n%s", backend, uid, err, out)
	}
}

func TestProcessServiceOnLandlock(t *testing.T) { rerunOn(t, "landlock", landlockTests, 0) }

func TestProcessServiceOnLandlockAsNonRoot(t *testing.T) {
	rerunOn(t, "landlock", landlockTests, 65534)
}
