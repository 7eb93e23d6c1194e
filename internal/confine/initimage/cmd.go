package initimage

import (
	"encoding/json"
	"os"
	"strconv"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// NewCmd prepares the init's Cmd for spec, executed from Path (the
// carried init, or the running binary: see the package doc).
func NewCmd(spec *initproc.Spec, attr *syscall.SysProcAttr) (*confine.Cmd, error) {
	image, f, err := ForChild(initproc.ImageFD)
	if err != nil {
		return nil, err
	}
	cmd, err := newCmd(image, f, spec, attr)
	if err != nil && f != nil {
		f.Close()
	}
	return cmd, err
}

// ForChild is how a child executes the carried image when it is given the
// image at descriptor fd (an os/exec child: fd = 3 + the ExtraFiles index):
// the path it executes, /proc/self/fd/<fd>, and a descriptor of its own on
// the sealed memfd, which the caller passes at fd and closes once the child
// has started. A child never executes the process's own descriptor of the
// memfd: os/exec moves descriptors to just above the highest it was given,
// which can land on it. Where the image is the running binary (Path), it
// returns initproc.SelfExe and no file. Besides the init, the image answers
// the subreaper's entry point (internal/reaper), which internal/run starts
// this way.
func ForChild(fd int) (string, *os.File, error) {
	image, err := Path()
	if err != nil || image == initproc.SelfExe {
		return image, nil, err
	}
	f, err := imageFile()
	if err != nil {
		return "", nil, err
	}
	return "/proc/self/fd/" + strconv.Itoa(fd), f, nil
}

// NewCmdAt prepares the init's Cmd for spec, executed from image
// (initproc.SelfExe: the running binary): the spec pipe on descriptor 3, written by
// Setup, which internal/run calls once the supervisor has placed the init
// (so the command is never forked before the init is in its cgroup; the
// linux backend gates its init instead and writes the spec at once, see
// internal/confine/linux's gate), the status channel on descriptor 4, and
// descriptor 5 (initproc.ImageFD) closed. The caller fills in Backend, Enforcement, Dialect and
// TreeKill. It lives here, on the parent's side, rather than in initproc,
// so that the init does not link internal/confine (and through it the
// proxy, net/http and crypto/tls).
func NewCmdAt(image string, spec *initproc.Spec, attr *syscall.SysProcAttr) (*confine.Cmd, error) {
	return newCmd(image, nil, spec, attr)
}

// newCmd is NewCmdAt with the file the child inherits as ImageFD (nil:
// none), which Cleanup closes (internal/run closes it once the child has
// started, as every ExtraFile).
func newCmd(image string, imageF *os.File, spec *initproc.Spec, attr *syscall.SysProcAttr) (*confine.Cmd, error) {
	exe, err := initproc.Executable()
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
		Args:        []string{exe, initproc.Arg},
		Env:         initproc.InitEnv(),
		Dir:         "/",
		ExtraFiles:  []*os.File{specR, statW, imageF},
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
		if imageF != nil {
			imageF.Close()
		}
	}
	return cmd, nil
}
