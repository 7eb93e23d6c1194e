//go:build linux

package inittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage/imagesrc"
	"github.com/ringfence/ringfence/internal/testenv"
)

// RerunOptions say how Rerun runs tests again.
type RerunOptions struct {
	// Pattern selects the tests (-test.run).
	Pattern string
	// UID runs them as this user (and group); 0 keeps the caller's.
	UID int
	// Env is added to the rerun's environment (PATH, TMPDIR, HOME and
	// RINGFENCE_REQUIRE_ALL=1 are always set).
	Env []string
	// Copies are more binaries the rerun needs, by the environment
	// variable that will name the copy: each is copied beside the test
	// binary, executable by UID.
	Copies map[string]string
	// NoSkip fails the rerun when any test in it skipped.
	NoSkip bool
	// PassMark counts passes (default "--- PASS"); at least one is needed.
	PassMark string
}

// Rerun runs the tests matching o.Pattern again from a copy of the running
// test binary that o.UID can execute, in a private TMPDIR and HOME, under
// RINGFENCE_REQUIRE_ALL=1 (so a missing feature fails there instead of
// skipping), and fails t when the rerun fails or passes nothing. It
// returns the rerun's output.
func Rerun(t *testing.T, o RerunOptions) string {
	t.Helper()
	testenv.NeedRoot(t)
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-rerun-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.Executable()
	must(t, err)
	tmp := filepath.Join(dir, "tmp")
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + tmp, "HOME=" + tmp, "RINGFENCE_REQUIRE_ALL=1"}
	env = append(env, initChoice()...)
	bin := copyBinary(t, self, filepath.Join(dir, filepath.Base(self)))
	for name, from := range o.Copies {
		env = append(env, name+"="+copyBinary(t, from, filepath.Join(dir, strings.ToLower(name))))
	}
	must(t, os.Mkdir(tmp, 0o700))
	must(t, os.Chown(tmp, o.UID, o.UID))
	must(t, os.Chmod(dir, 0o755))
	cmd := exec.Command(bin, "-test.run", o.Pattern, "-test.count=1", "-test.v")
	cmd.Env = append(env, o.Env...)
	cmd.Dir = tmp
	if o.UID != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(o.UID), Gid: uint32(o.UID)}}
	}
	out, err := cmd.CombinedOutput()
	mark := o.PassMark
	if mark == "" {
		mark = "--- PASS"
	}
	passed, skipped := strings.Count(string(out), mark), strings.Count(string(out), "--- SKIP")
	t.Logf("rerun as uid %d: %d passed, %d skipped", o.UID, passed, skipped)
	if err != nil || passed == 0 || o.NoSkip && skipped > 0 {
		t.Fatalf("rerun as uid %d failed: %v\n%s", o.UID, err, out)
	}
	return string(out)
}

// initEnv is initimage.Env (that package's tests import this one).
const initEnv = "RINGFENCE_INIT"

// initChoice gives the rerun this process's choice of init. A test binary
// uses the carried init when it can show the blob is built from the
// sources on disk (initimage's sourcesAsRecorded), which a copy started as
// another user outside the module cannot: it would run itself as every
// init, which under -race is most of a rerun's time. So the rerun is told
// RINGFENCE_INIT=embedded when this process can show it, or is given the
// value this process was given.
func initChoice() []string {
	if v, ok := os.LookupEnv(initEnv); ok {
		return []string{initEnv + "=" + v}
	}
	if runtime.GOARCH != "amd64" { // the only blob generated
		return nil
	}
	root, err := imagesrc.ModuleRoot(".")
	if err != nil {
		return nil
	}
	record, err := os.ReadFile(filepath.Join(root, imagesrc.Dir, imagesrc.Sum))
	if err != nil || !imagesrc.SourcesAsRecorded(root, record) {
		return nil
	}
	return []string{initEnv + "=embedded"}
}

func copyBinary(t *testing.T, from, to string) string {
	data, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, data, 0o755))
	return to
}
