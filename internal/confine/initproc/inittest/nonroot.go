//go:build linux

package inittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

const nobody = 65534

// RerunAsNonRoot runs the tests matching pattern again as an unprivileged
// user (uid 65534), from a copy of the running test binary it can execute,
// under RINGFENCE_REQUIRE_ALL=1. Attacks marked Root skip there.
func RerunAsNonRoot(t *testing.T, pattern string) {
	if os.Geteuid() != 0 {
		t.Skip("already not root")
	}
	testenv.NeedRoot(t)
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-nonroot-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	must(t, err)
	data, err := os.ReadFile(self)
	must(t, err)
	bin := filepath.Join(dir, "confine.test")
	must(t, os.WriteFile(bin, data, 0o755))
	tmp := filepath.Join(dir, "tmp")
	must(t, os.Mkdir(tmp, 0o700))
	must(t, os.Chown(tmp, nobody, nobody))
	must(t, os.Chmod(dir, 0o755))
	cmd := exec.Command(bin, "-test.run", pattern, "-test.count=1", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "RINGFENCE_REQUIRE_ALL=1", "HOME=" + tmp}
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	passed := strings.Count(string(out), "--- PASS")
	t.Logf("non-root run: %d passed, %d skipped", passed, strings.Count(string(out), "--- SKIP"))
	if err != nil || passed == 0 {
		t.Fatalf("non-root run failed: %v\n%s", err, out)
	}
}
