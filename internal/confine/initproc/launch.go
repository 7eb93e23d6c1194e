package initproc

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
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
// guarantee); test binaries run themselves through SelfExe.
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

// NewCmd prepares the init's Cmd for spec, executed from image (SelfExe,
// or the carried small init: internal/confine/initimage.Path): the spec
// pipe on descriptor 3,
// written by Setup once the supervisor has placed the init (so the command
// is never forked before the init is in its cgroup), and the status channel
// on descriptor 4. The caller fills in Backend, Enforcement, Dialect and
// TreeKill.
func NewCmd(image string, spec *Spec, attr *syscall.SysProcAttr) (*confine.Cmd, error) {
	exe, err := Executable()
	if err != nil {
		return nil, err
	}
	spec.Parent = os.Getpid()
	data, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	specR, specW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	statR, statW, err := os.Pipe()
	if err != nil {
		specR.Close()
		specW.Close()
		return nil, err
	}
	cmd := &confine.Cmd{
		Path:        image,
		Args:        []string{exe, Arg},
		Env:         initEnv,
		Dir:         "/",
		ExtraFiles:  []*os.File{specR, statW},
		SysProcAttr: attr,
		Status:      statR,
	}
	cmd.Setup = func(int) error {
		_, err := specW.Write(data)
		if cerr := specW.Close(); err == nil {
			err = cerr
		}
		return err
	}
	cmd.Cleanup = func() {
		specW.Close()
		statR.Close()
		specR.Close()
		statW.Close()
	}
	return cmd, nil
}
