package initproc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// initEnv is the init's own environment: nothing of the caller's (the
// command's environment travels in the Spec), and a Go runtime kept small
// because the init lives as long as the command.
var initEnv = []string{"GOMAXPROCS=1", "GOGC=off", "GODEBUG=asyncpreemptoff=1,containermaxprocs=0,updatemaxprocs=0"}

// SelfExe is the running binary as an init image: the kernel's own
// reference to the image this process runs, not a path. A path names
// whatever file is there when exec(2) looks: a binary renamed over ours,
// or a package upgrade, between our start and the init's exec would run as
// the init, and the exec stage (Spec.Nest) would run it again from inside
// the sandbox. The image we run cannot be written while we run it
// (ETXTBSY), so the init is the very code that built its spec
// (TestReplacedBinaryCannotBecomeInit). Programs run the smaller carried
// init instead (internal/confine/initimage: a sealed memfd, the same
// guarantee); test binaries run themselves through SelfExe. The parent's
// side of starting an init (initimage.NewCmd) lives there too, so the
// init itself does not link internal/confine.
const SelfExe = "/proc/self/exe"

// Executable is the path of the ringfence binary, for names and Landlock
// rules only; what is executed is SelfExe.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the ringfence executable: %w", err)
	}
	return filepath.EvalSymlinks(exe)
}

// InitEnv is the init's environment, for the parent that starts it
// (internal/confine/initimage.NewCmd).
func InitEnv() []string { return slices.Clone(initEnv) }
