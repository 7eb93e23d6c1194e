package landlock

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// runShared runs script under the backend; shared leaves the command in
// its init's Landlock domain (the control).
func runShared(t *testing.T, p *policy.Policy, shared bool, script string) inittest.Result {
	t.Helper()
	return runWith(t, p, Options{sharedDomain: shared}, script)
}

// runWith runs script under the backend with opts.
func runWith(t *testing.T, p *policy.Policy, opts Options, script string) inittest.Result {
	t.Helper()
	if ABI() < 6 {
		testenv.Need(t, "Landlock scopes (ABI 6)", errNoScopes)
	}
	return runArgv(t, p, opts, "/bin/sh", "-c", script)
}

// runArgv runs argv confined by a provider with opts under p.
func runArgv(t *testing.T, p *policy.Policy, opts Options, argv ...string) inittest.Result {
	t.Helper()
	prov := &Provider{opts: opts}
	testenv.Need(t, "landlock backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: argv, Policy: p, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// refused: the command's kill failed with EPERM and the command went on to
// exit by itself with kill's status. Anything else means the signal got
// through: the command exits 0 (the init shrugged it off), or the init
// died, or it ended the command (SIGPWR makes it end the tree).
func refused(r inittest.Result) bool {
	e := r.Status.Exit
	return e != nil && e.ExitCode != nil && *e.ExitCode == 1 && strings.Contains(r.Stderr, "not permitted")
}

// initDied: the init ended without reporting the command's end.
func initDied(r inittest.Result) bool { return r.Status.Exit == nil && r.Code != 0 }

// The command cannot signal its init: not stop it (which would leave the
// tree without its watchdog), not kill or crash it (which would end the
// run without the init's account of it), not fake its parent's death.
// The control — the command in its init's domain, as before it had one
// of its own — shows every one of these signals reaching the init.
func TestCommandCannotSignalItsInit(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetDeny)
	for _, sig := range []string{"STOP", "TSTP", "ABRT", "SEGV", "SYS", "PWR", "KILL"} {
		t.Run(sig, func(t *testing.T) {
			// No redirection: opening a file for writing is a call the
			// init's guard answers, and a stopped init answers none.
			script := `kill -` + sig + ` $PPID; rc=$?; kill -CONT $PPID; exit $rc`
			ctl := runShared(t, p, true, script)
			if refused(ctl) {
				t.Fatalf("control: SIG%s did not reach the init (exit %d, stderr %q): the check could not fail", sig, ctl.Code, ctl.Stderr)
			}
			// Whatever the signal did to the init, the command ran and
			// must never be told it did not.
			if !ctl.Status.Started || ctl.Status.Failure != nil {
				t.Fatalf("control: a command that signalled its init was reported as never run: %+v", ctl.Status)
			}
			res := runShared(t, p, false, script)
			if !refused(res) {
				t.Fatalf("SIG%s reached the init (exit %d, status %+v, stderr %q)", sig, res.Code, res.Status, res.Stderr)
			}
			t.Logf("refused: %s", res.Stderr)
			// The init's own image as the stage (builds that carry none).
			if res := runWith(t, p, Options{goExecStage: true}, script); !refused(res) {
				t.Fatalf("Go exec stage: SIG%s reached the init (exit %d, status %+v, stderr %q)", sig, res.Code, res.Status, res.Stderr)
			}
		})
	}
}

// A command that kills its init at once races the init's "started"
// record. Before the exec record, losing that race told the model the
// command never ran. Now the run is reported as started whoever wins;
// the log says how often the init died before confirming the start.
func TestInitKilledByCommandIsNeverNeverRan(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetDeny)
	unconfirmed := 0
	for range 20 {
		res := runShared(t, p, true, `kill -KILL $PPID`)
		if !initDied(res) {
			t.Fatalf("control: the init survived its SIGKILL (exit %d)", res.Code)
		}
		if !res.Status.Started || res.Status.Failure != nil || res.Status.Silent {
			t.Fatalf("reported as never run: %+v", res.Status)
		}
		if res.Status.Unconfirmed {
			unconfirmed++
		}
	}
	t.Logf("%d of 20 runs: the init died before confirming the start (would have read \"never ran\")", unconfirmed)
}

// Without a pid namespace, what the command leaves running — a background
// child, a setsid'd daemon re-parented to the init — ends with the
// command, as under a namespace's pid 1. Under an allow-list baseline too,
// where the init's own confined thread could not read /proc to find them.
// The control, unconfined, leaves the daemon running.
func TestDaemonEndsWithTheCommand(t *testing.T) {
	e := inittest.NewEnv(t)
	script := `setsid sleep 1000 ` + e.Mark + ` </dev/null >/dev/null 2>&1 & sleep 1000 ` + e.Mark + ` </dev/null >/dev/null 2>&1 & sleep 0.2`
	ctl := exec.Command("/bin/sh", "-c", script)
	if err := ctl.Run(); err != nil {
		t.Fatal(err)
	}
	left := inittest.SurvivorPids(e.Mark)
	inittest.KillPids(left)
	if len(left) == 0 {
		t.Fatal("control: nothing outlived the unconfined command: the check could not fail")
	}
	allow := &policy.Policy{Mode: policy.WorkspaceWrite, Root: e.Root, Baseline: policy.Deny,
		Network: policy.Network{Mode: policy.NetDeny}}
	for _, dir := range []string{"/usr", "/bin", "/lib", "/lib64", "/etc"} {
		allow.Layers = append(allow.Layers, policy.Layer{Path: dir, Access: policy.Read, Origin: policy.FromDeployment})
	}
	allow.Layers = append(allow.Layers, policy.Layer{Path: e.Root, Access: policy.Write, Origin: policy.FromMode})
	policy.SortLayers(allow.Layers)
	for name, p := range map[string]*policy.Policy{"read-baseline": e.Policy(policy.NetDeny), "allow-list": allow} {
		t.Run(name, func(t *testing.T) {
			res := runShared(t, p, false, script)
			left := inittest.SurvivorPids(e.Mark)
			inittest.KillPids(left)
			if res.Code != 0 || len(left) > 0 {
				t.Fatalf("exit %d (stderr %q), survivors %v", res.Code, res.Stderr, left)
			}
		})
	}
}

// An exec that fails in the exec stage is reported as ForkExec reports it
// when the init starts the command directly: a program that cannot be
// executed is the command's failure, not "started" and not the runner's.
func TestExecStageReportsExecFailure(t *testing.T) {
	e := inittest.NewEnv(t)
	bad := e.Root + "/work/not-a-program"
	if err := os.WriteFile(bad, []byte{0, 1, 2, 3}, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{sharedDomain: true}, {}, {goExecStage: true}} {
		res := runArgv(t, e.Policy(policy.NetDeny), opts, bad)
		f := res.Status.Failure
		if res.Status.Started || f == nil || f.Reason != status.NotExecutable || f.Errno != "ENOEXEC" {
			t.Fatalf("%+v: status %+v failure %+v", opts, res.Status, f)
		}
	}
}

// An argument longer than the kernel takes (MAX_ARG_STRLEN, 128 KiB) is
// the command's exec failure, E2BIG, under every stage: the carried stage
// gets the command's argv as its own, so there it is the stage's exec that
// fails, and the init must report that as the command's failure, not a
// set-up failure. The control is the same exec outside any sandbox.
func TestTooLongArgumentIsTheCommandsFailure(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	if err := exec.Command("/bin/true", long).Run(); !errors.Is(err, syscall.E2BIG) {
		t.Fatalf("control: running /bin/true with a %d-byte argument: %v, want E2BIG", len(long), err)
	}
	e := inittest.NewEnv(t)
	for name, opts := range map[string]Options{"shared domain": {sharedDomain: true}, "carried stage": {}, "Go stage": {goExecStage: true}} {
		t.Run(name, func(t *testing.T) {
			res := runArgv(t, e.Policy(policy.NetDeny), opts, "/bin/true", long)
			f := res.Status.Failure
			if res.Status.Started || f == nil || f.Errno != "E2BIG" || f.Stage != "exec" {
				t.Fatalf("status %+v failure %+v, want the command's exec failing with E2BIG", res.Status, f)
			}
		})
	}
}

// The command holds nothing of its init's or its exec stage's: neither
// the stage's image (a memfd) nor its report pipe, under either stage.
// The shell lists its own descriptors (the `; true` keeps it from
// becoming ls).
func TestCommandHoldsNothingOfTheStage(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetDeny)
	for name, opts := range map[string]Options{"carried stage": {}, "Go stage": {goExecStage: true}} {
		t.Run(name, func(t *testing.T) {
			res := runWith(t, p, opts, `ls -l /proc/$$/fd; true`)
			if res.Code != 0 || !strings.Contains(res.Stdout, " 0 -> ") {
				t.Fatalf("exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
			}
			for _, line := range strings.Split(res.Stdout, "\n") {
				num, target, ok := strings.Cut(line, " -> ")
				if !ok {
					continue
				}
				fields := strings.Fields(num)
				fd := fields[len(fields)-1]
				if strings.Contains(target, "memfd:") || fd != "0" && fd != "1" && fd != "2" && strings.HasPrefix(target, "pipe:") {
					t.Errorf("the command holds descriptor %s -> %s:\n%s", fd, target, res.Stdout)
				}
			}
		})
	}
}
