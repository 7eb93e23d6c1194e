package initproc_test

// An external test package: it starts inits through initimage.NewCmdAt,
// the parent's side, which imports this package.

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
)

// pidnsAttr starts a process as pid 1 of new user and pid namespaces, as
// the linux backend starts its init.
func pidnsAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		Pdeathsig:   syscall.SIGKILL,
	}
}

// nsSpec is the least a namespace init needs: a view with a fresh /proc
// (the init reads its own threads there) and the host readable.
func nsSpec(argv ...string) *initproc.Spec {
	return &initproc.Spec{Argv: argv, Dir: "/", Env: []string{"PATH=/usr/bin:/bin"},
		View:     &initproc.View{Ops: []initproc.Op{{Kind: initproc.Proc, Target: "/proc"}, {Kind: initproc.Dev, Target: "/dev"}}},
		Landlock: initproc.Landlock{Read: []string{"/"}, Write: []string{"/dev/null"}}}
}

// crashSignals are the signals a command sends pid 1 — its namespace's
// init — to end, crash or stop a Go program.
const crashSignals = "ABRT SEGV BUS FPE ILL SYS TRAP TSTP TTIN TTOU PIPE ALRM VTALRM XCPU XFSZ 16 PWR STOP KILL" // 16: SIGSTKFLT, unnamed in dash

// As pid 1 of its pid namespace the init gets only the signals it has a
// handler for from inside, and Go installs one for nearly every signal:
// a command could crash it with kill -ABRT 1 (ending the run without the
// init's account of it), or stop it with kill -TSTP 1. The init is deaf
// to every signal it does not use. The control is a plain Go parent as
// pid 1 of the same namespaces: the same script ends it.
func TestNamespaceInitIgnoresSignalsFromInside(t *testing.T) {
	if err := exec.Command("/bin/true").Run(); err != nil {
		t.Fatal(err)
	}
	probe := exec.Command("/bin/true")
	probe.SysProcAttr = pidnsAttr()
	testenv.Need(t, "user and pid namespaces", probe.Run())
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	// The control, for three of them (each run starts a Go binary, slow
	// under the race detector).
	for _, sig := range []string{"ABRT", "SEGV", "SYS"} {
		ctl := exec.Command(exe, "/bin/sh", "-c", "kill -"+sig+" 1 || exit 9; sleep 2; echo alive")
		ctl.Env = []string{"RF_INIT_HELPER=plain", "PATH=/usr/bin:/bin"}
		ctl.SysProcAttr = pidnsAttr()
		if out, err := ctl.CombinedOutput(); err == nil || strings.Contains(string(out), "alive") {
			t.Fatalf("control: SIG%s did not end a plain Go pid 1 (%v, %q): the check could not fail", sig, err, out)
		}
	}

	// One init, every signal in turn; then it must still be there to
	// report the command's own end.
	script := `for s in ` + crashSignals + `; do kill -$s 1 || exit 9; sleep 0.01; done; echo alive`
	spec := nsSpec("/bin/sh", "-c", script)
	attr := pidnsAttr()
	attr.Cloneflags |= syscall.CLONE_NEWNS
	c, err := initimage.NewCmdAt(initproc.SelfExe, spec, attr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || res.Stdout != "alive\n" || res.Status.Exit == nil || res.Status.Unconfirmed {
		t.Fatalf("the init did not survive: exit %d, stdout %q, stderr %q, status %+v", res.Code, res.Stdout, res.Stderr, res.Status)
	}
}

// The init writes "exec" before it forks and "started" after: the order
// the status package's reading relies on.
func TestStatusRecordsInOrder(t *testing.T) {
	spec := &initproc.Spec{Argv: []string{"/bin/true"}, Dir: "/", Env: []string{"PATH=/usr/bin:/bin"},
		Landlock: initproc.Landlock{Read: []string{"/"}}}
	c, err := initimage.NewCmdAt(initproc.SelfExe, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var raw strings.Builder
	tee := c.Status
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Status = r
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tee.Read(buf)
			raw.Write(buf[:n])
			if _, werr := w.Write(buf[:n]); err != nil || werr != nil {
				w.Close()
				return
			}
		}
	}()
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, l := range strings.Split(strings.TrimSpace(raw.String()), "\n") {
		_, rest, _ := strings.Cut(l, `"kind":"`)
		k, _, _ := strings.Cut(rest, `"`)
		kinds = append(kinds, k)
	}
	if strings.Join(kinds, ",") != "exec,started,exited" || res.Code != 0 {
		t.Fatalf("records %v (exit %d)", kinds, res.Code)
	}
}

// The init catches and drops nearly every signal, from its first moment
// (startDeafening), yet the command must start with none ignored or
// blocked: caught dispositions reset on exec, ignored ones would not, and
// a command that silently ignored SIGPIPE or SIGINT would behave unlike
// itself. The control ignores SIGPIPE in the shell that executes the same
// grep: the check sees it.
func TestCommandStartsWithDefaultDispositions(t *testing.T) {
	const zero = "0000000000000000"
	grep := []string{"/bin/grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"}
	ctl, err := exec.Command("/bin/sh", "-c", `trap "" PIPE; exec "$@"`, "sh", grep[0], grep[1], grep[2], grep[3]).Output()
	if err != nil || !strings.Contains(string(ctl), "SigIgn:\t") || strings.Contains(string(ctl), "SigIgn:\t"+zero) {
		t.Fatalf("control: an ignored SIGPIPE is not seen (%v): %q", err, ctl)
	}
	attr := pidnsAttr()
	attr.Cloneflags |= syscall.CLONE_NEWNS
	c, err := initimage.NewCmdAt(initproc.SelfExe, nsSpec(grep...), attr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || res.Stdout != "SigBlk:\t"+zero+"\nSigIgn:\t"+zero+"\n" {
		t.Fatalf("the command did not start with default dispositions: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

// The init must hold for a caller that is not root, too.
func TestAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestNamespaceInitIgnoresSignalsFromInside|TestStatusRecordsInOrder|TestCommandStartsWithDefaultDispositions)$")
}
