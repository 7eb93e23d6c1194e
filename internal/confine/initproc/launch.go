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

// Executable is the ringfence binary to re-execute as the init, resolved
// once per Confine so a replaced binary on disk is noticed by the next call.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the ringfence executable: %w", err)
	}
	return filepath.EvalSymlinks(exe)
}

// NewCmd prepares the init's Cmd for spec: the spec pipe on descriptor 3,
// written by Setup once the supervisor has placed the init (so the command
// is never forked before the init is in its cgroup), and the status channel
// on descriptor 4. The caller fills in Backend, Enforcement, Dialect and
// TreeKill.
func NewCmd(spec *Spec, attr *syscall.SysProcAttr) (*confine.Cmd, error) {
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
		Path:        exe,
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
