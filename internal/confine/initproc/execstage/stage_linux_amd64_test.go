package execstage_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc/execstage"
	"github.com/ringfence/ringfence/internal/memfd"
	"github.com/ringfence/ringfence/internal/testenv"
)

// staged is one run of prog with argv through the carried stage (or,
// direct, without it: the control), as the init starts it: executed from
// a sealed memfd handed over as descriptor 4, the report pipe at 3.
type staged struct {
	out    string
	code   int
	report []byte
}

func runStage(t *testing.T, direct bool, env []string, prog string, argv ...string) staged {
	t.Helper()
	if abi, err := ll.LandlockGetABIVersion(); err != nil || abi < 6 {
		testenv.Need(t, "Landlock scopes (ABI 6)", errors.New("Landlock ABI "+strconv.Itoa(abi)+" on this kernel"))
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer repR.Close()
	var cmd *exec.Cmd
	if direct {
		cmd = exec.Command(prog, argv[1:]...)
		cmd.Args[0] = argv[0]
	} else {
		image := os.NewFile(uintptr(stageMemfd(t)), "stage")
		defer image.Close()
		cmd = exec.Command("/proc/self/fd/4", append([]string{prog}, argv...)...)
		cmd.ExtraFiles = []*os.File{repW, image}
	}
	var out bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &out
	if cmd.ExtraFiles == nil {
		cmd.ExtraFiles = []*os.File{repW}
	}
	err = cmd.Start()
	repW.Close()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	report := make([]byte, 16)
	n, _ := repR.Read(report)
	return staged{out: out.String(), code: cmd.ProcessState.ExitCode(), report: report[:n]}
}

func stageMemfd(t *testing.T) int {
	t.Helper()
	fd, err := memfd.Sealed("exec-stage-test", execstage.Image())
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// The stage executes the command with the argv and environment it was
// given, reports nothing, and leaves the command neither the report pipe
// nor its own image.
func TestStageRunsTheCommand(t *testing.T) {
	r := runStage(t, false, []string{"X=from-env"}, "/bin/sh", "sh", "-c", `echo "$0:$1:$X"; ls -l /proc/$$/fd`, "zeroth", "first")
	if r.code != 0 || len(r.report) != 0 {
		t.Fatalf("exit %d, report %q, output %q", r.code, r.report, r.out)
	}
	if !strings.HasPrefix(r.out, "zeroth:first:from-env\n") {
		t.Fatalf("the command did not get its argv and environment: %q", r.out)
	}
	if regexp.MustCompile(`(?m) 3 -> |memfd:`).MatchString(r.out) {
		t.Fatalf("the command inherited the stage's report pipe or image:\n%s", r.out)
	}
}

// The command cannot signal its parent (the init's place), nor reach an
// abstract unix socket outside its domain; the control, the same command
// without the stage, does both.
func TestStageScopesTheCommand(t *testing.T) {
	name := "ringfence-execstage-test-" + strconv.Itoa(os.Getpid())
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: "@" + name, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, prog, script string }{
		{"signal", "/bin/sh", `kill -0 $PPID`},
		{"abstract socket", py, `import socket; socket.socket(socket.AF_UNIX).connect("\0` + name + `")`},
	} {
		t.Run(c.name, func(t *testing.T) {
			flag := "-c"
			ctl := runStage(t, true, nil, c.prog, filepath.Base(c.prog), flag, c.script)
			if ctl.code != 0 {
				t.Fatalf("control: the command could not do it without the stage (exit %d: %s): the check could not fail", ctl.code, ctl.out)
			}
			r := runStage(t, false, nil, c.prog, filepath.Base(c.prog), flag, c.script)
			if r.code == 0 || len(r.report) != 0 || !strings.Contains(r.out, "ermitted") {
				t.Fatalf("through the stage: exit %d, report %q, output %q; want a refusal (EPERM)", r.code, r.report, r.out)
			}
		})
	}
}

// The stage's layer grants reparenting: a cross-directory rename and
// link, which a layer handling REFER without granting it refuses (EXDEV),
// still work. (Not mv: it copies when rename says EXDEV.)
func TestStageKeepsRenames(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	r := runStage(t, false, nil, py, "python3", "-c", `import os, sys; os.chdir(sys.argv[1]); os.link("a/f", "b/g"); os.rename("a/f", "b/f")`, dir)
	if r.code != 0 {
		t.Fatalf("exit %d, report %q: %s", r.code, r.report, r.out)
	}
	for _, f := range []string{"b/f", "b/g"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("the rename or link did not happen: %v", err)
		}
	}
}

// A failure is reported as the init reads it: 'x' and the errno when the
// command's execve fails, 's' when the stage cannot do its part; the
// stage then exits 125 (initproc.ExitSetup) without running anything.
func TestStageReportsFailures(t *testing.T) {
	dir := t.TempDir()
	missing, plain := filepath.Join(dir, "missing"), filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		argv  []string
		kind  byte
		errno syscall.Errno
	}{
		{"missing program", []string{missing, "missing"}, 'x', unix.ENOENT},
		{"not executable", []string{plain, "plain"}, 'x', unix.EACCES},
		{"no argv", []string{"/bin/true"}, 's', unix.EINVAL},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runStage(t, false, nil, c.argv[0], c.argv[1:]...)
			want := []byte{c.kind, 0, 0, 0, 0}
			binary.LittleEndian.PutUint32(want[1:], uint32(c.errno))
			if r.code != 125 || !bytes.Equal(r.report, want) {
				t.Fatalf("exit %d, report %q; want 125 and %q (%v)", r.code, r.report, want, c.errno)
			}
		})
	}
}
