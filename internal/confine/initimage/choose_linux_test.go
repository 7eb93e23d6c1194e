package initimage

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A test binary with RINGFENCE_INIT unset runs the carried init when it
// was built from the sources the test runs from — what ships, and under
// -race a small uninstrumented program instead of the whole test binary,
// started for every sandbox — and runs the init as written when the check
// cannot say so (here: started outside the module, so no sources to
// compare; a changed source is the same branch of choose, TestChoose).
func TestTestBinariesRunWhatShips(t *testing.T) {
	if os.Getenv(asOthers) != "" {
		path, err := Path()
		fmt.Printf("path=%s err=%v describe=%s\n", path, err, Describe())
		return
	}
	needBlob(t)
	// While the init's sources are changed and not yet regenerated
	// (TestEmbeddedInitIsFresh fails then), the package directory gives
	// the test binary too.
	fresh := sourcesAsRecorded()
	child := func(dir string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestTestBinariesRunWhatShips$", "-test.count=1")
		cmd.Dir = dir
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, Env+"=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, asOthers+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child in %s: %v\n%s", dir, err, out)
		}
		return string(out)
	}
	if out := child("."); fresh && (!strings.Contains(out, "path=/proc/self/fd/") || !strings.Contains(out, "describe=embedded (")) {
		t.Errorf("from the package directory, with the blob fresh (TestEmbeddedInitIsFresh), the init is not the carried one:\n%s", out)
	} else if !fresh && !strings.Contains(out, "path=/proc/self/exe") {
		t.Errorf("from the package directory, with the init's sources changed, the init is not the test binary:\n%s", out)
	}
	out := child(t.TempDir())
	if !strings.Contains(out, "path=/proc/self/exe") || !strings.Contains(out, "not shown to be built from the sources on disk") {
		t.Errorf("outside the module, the init is not the test binary, or doctor does not say why:\n%s", out)
	}
}
