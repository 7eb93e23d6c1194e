package conformance_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The leak census the load test relies on sees each kind of leftover it
// claims to: a child process, a temp dir, a descriptor.
func TestLeakCensusCanFail(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	before := snapshot(t)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := os.Mkdir(filepath.Join(os.TempDir(), "ringfence-tmp-census"), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	after := snapshot(t)
	if len(after.procs) == 0 || len(minus(after.temps, before.temps)) != 1 || after.fds <= before.fds {
		t.Errorf("the census missed a leftover: %s", before.diff(after))
	}
}
