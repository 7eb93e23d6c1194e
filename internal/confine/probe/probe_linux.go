package probe

import (
	"errors"
	"fmt"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/linux"
)

// Host probes this machine. Each trial that could change process state
// (a namespace, a cgroup) runs in a child process or is undone at once.
func Host() Report { return Probe(HostSources()) }

// HostSources are the real fact sources of a Linux host.
func HostSources() Sources {
	return Sources{
		Uname:       uname,
		Euid:        os.Geteuid,
		ReadFile:    os.ReadFile,
		LandlockABI: landlockABI,
		Seccomp:     seccompAvail,
		TryUserNS:   tryUserNS,
		TryCgroup:   tryCgroup,
		Bwrap:       findBwrap,
		Linux:       linuxTrial,
		Getenv:      os.Getenv,
		Init:        initimage.Describe,
	}
}

// linuxTrial is the linux backend's own Available (it starts its init in
// the namespaces, re-executing this binary: nothing from the image) and
// the steps it leaves out here.
func linuxTrial() (linux.Degraded, error) {
	p := linux.New(linux.Options{}).(*linux.Provider)
	if err := p.Available(); err != nil {
		return linux.Degraded{}, err
	}
	return p.Degraded(), nil
}

func uname() (string, string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", "", err
	}
	return unix.ByteSliceToString(u.Release[:]), unix.ByteSliceToString(u.Machine[:]), nil
}

// landlockABI asks the kernel its Landlock ABI version without making a
// ruleset.
func landlockABI() (int, error) {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch errno {
	case 0:
		return int(abi), nil
	case unix.ENOSYS:
		return 0, errors.New("the kernel was built without Landlock")
	case unix.EOPNOTSUPP:
		return 0, errors.New("Landlock is built in but not enabled (lsm= boot parameter)")
	}
	return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
}

// seccompAvail asks which filter actions the kernel supports; nothing is
// installed.
func seccompAvail() (bool, bool, error) {
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); errors.Is(err, unix.EINVAL) {
		return false, false, errors.New("the kernel was built without seccomp")
	}
	filter := actionAvail(unix.SECCOMP_RET_KILL_PROCESS) == nil
	notifyErr := actionAvail(unix.SECCOMP_RET_USER_NOTIF)
	if !filter {
		return false, false, errors.New("seccomp filters are not supported")
	}
	if notifyErr != nil {
		return true, false, fmt.Errorf("user notification unsupported: %w", notifyErr)
	}
	return true, true, nil
}

func actionAvail(action uint32) error {
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if errno != 0 {
		return errno
	}
	return nil
}

// tryUserNS creates a child in new user, mount and pid namespaces, mapped
// to the current user, exactly as an unprivileged sandbox would need —
// and runs nothing in it, so it needs nothing from the image (a scratch or
// distroless container has no true(1), no shell). The child's execve is
// given a path longer than PATH_MAX: the kernel refuses it with
// ENAMETOOLONG before looking at any file, and only a child that was
// cloned into the namespaces and mapped gets that far (a refused clone or
// map write fails with its own errno first).
func tryUserNS() error {
	_, err := syscall.ForkExec(unreachablePath, []string{"ringfence-userns-trial"}, &syscall.ProcAttr{
		Env: []string{},
		Sys: &syscall.SysProcAttr{
			Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}},
			GidMappingsEnableSetgroups: false,
		},
	})
	return userNSVerdict(err)
}

// unreachablePath is longer than PATH_MAX (4096), so execve refuses it
// with ENAMETOOLONG without a lookup.
var unreachablePath = "/" + strings.Repeat("r", 4200)

// userNSVerdict reads the trial's error: ENAMETOOLONG is the execve the
// child reached inside its namespaces (success); nil cannot happen (no such
// program) and is treated as success too; anything else is the refusal.
func userNSVerdict(err error) error {
	var errno syscall.Errno
	switch {
	case err == nil, errors.Is(err, syscall.ENAMETOOLONG):
		return nil
	case errors.As(err, &errno):
		return fmt.Errorf("clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID): %s (%s)", unix.ErrnoName(errno), errno.Error())
	}
	return err
}

// tryCgroup makes and removes an empty group under dir.
func tryCgroup(dir string) error {
	name := filepath.Join(dir, "ringfence-probe-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(name, 0o755); err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return fmt.Errorf("mkdir: %s", unix.ErrnoName(errno))
		}
		return err
	}
	return os.Remove(name)
}

func findBwrap() (string, string, error) {
	p := bwrap.New(bwrap.Options{})
	err := p.Available()
	return p.Path(), p.Version(), err
}
