package linux

import (
	"errors"
	"os"
	"os/exec"
	"strings"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/status"
)

// sysctlGates are the knobs that switch unprivileged user namespaces off,
// and the value that means "off".
var sysctlGates = []struct{ path, off, why string }{
	{"/proc/sys/user/max_user_namespaces", "0", "user namespaces disabled: /proc/sys/user/max_user_namespaces=0"},
	{"/proc/sys/kernel/unprivileged_userns_clone", "0", "user namespaces disabled: /proc/sys/kernel/unprivileged_userns_clone=0"},
	{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "AppArmor restricts user namespaces: /proc/sys/kernel/apparmor_restrict_unprivileged_userns=1"},
}

// probe starts the init in the namespaces Confine uses and has it build a
// minimal view with a fresh /proc, pivot into it and set its host name.
// Where the kernel or the runtime refuses one of those steps but not the
// namespaces (a container: a masked /proc, a seccomp profile that keeps
// sethostname for CAP_SYS_ADMIN), it tries again without that step
// (nextStep decides) and, when that works, reports the backend available
// with the steps not taken: one step lost, not the whole backend. Only a
// child does this: the caller's own process is never changed.
func probe() (Degraded, error) {
	var d Degraded
	var first error
	for range 4 {
		stage, errno, err := probeWith(d)
		if err == nil {
			return d, nil
		}
		if first == nil {
			first = err // the first refusal is the one worth naming
		}
		next, ok := nextStep(d, stage, errno)
		if !ok {
			return Degraded{}, first
		}
		d = next
	}
	return Degraded{}, first
}

// probeWith runs the probe with the steps d leaves out, and says at which
// stage, with which errno, the init failed.
func probeWith(d Degraded) (stage, errno string, err error) {
	proc := initproc.Proc
	if d.HostProc {
		proc = initproc.ProcHost
	}
	spec := &initproc.Spec{Probe: true, View: &initproc.View{Ops: []initproc.Op{{Kind: proc, Target: "/proc"}}}}
	if !d.NoHostname {
		spec.Hostname = Hostname
	}
	c, err := initimage.NewCmd(spec, sysProcAttr(true))
	if err != nil {
		return "", "", unavailable("%v", err)
	}
	defer c.Cleanup()
	cmd := exec.Command(c.Path, c.Args[1:]...)
	cmd.Args[0] = c.Args[0]
	cmd.Env, cmd.Dir, cmd.ExtraFiles, cmd.SysProcAttr = c.Env, c.Dir, c.ExtraFiles, c.SysProcAttr
	if err := cmd.Start(); err != nil {
		return "", "", unavailable("%s", startFailure(err))
	}
	c.ExtraFiles[0].Close()
	c.ExtraFiles[1].Close()
	serr := c.Setup(cmd.Process.Pid)
	sum := status.Read(c.Status)
	werr := cmd.Wait()
	switch {
	case serr != nil:
		return "", "", unavailable("sending the probe spec: %v", serr)
	case sum.Failure != nil:
		return sum.Failure.Stage, sum.Failure.Errno,
			unavailable("the probe failed at %s (%s)", sum.Failure.Stage, sum.Failure.Errno)
	case werr != nil:
		return "", "", unavailable("the probe exited: %v", werr)
	}
	return "", "", nil
}

// startFailure explains why clone of the namespaces failed.
func startFailure(err error) string {
	if os.Geteuid() != 0 {
		for _, g := range sysctlGates {
			if b, rerr := os.ReadFile(g.path); rerr == nil && strings.TrimSpace(string(b)) == g.off {
				return g.why
			}
		}
	} else if b, rerr := os.ReadFile(sysctlGates[0].path); rerr == nil && strings.TrimSpace(string(b)) == "0" {
		return sysctlGates[0].why
	}
	var perr *os.PathError
	if errors.As(err, &perr) {
		err = perr.Err
	}
	return "creating user, mount and pid namespaces failed: " + err.Error()
}

// quickCheck reads the switches that turn user namespaces off for the
// caller, without creating one.
func quickCheck() error {
	for i, g := range sysctlGates {
		if i > 0 && os.Geteuid() == 0 {
			break // only max_user_namespaces binds root
		}
		if b, err := os.ReadFile(g.path); err == nil && strings.TrimSpace(string(b)) == g.off {
			return unavailable("%s", g.why)
		}
	}
	return nil
}
