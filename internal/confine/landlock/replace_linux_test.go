package landlock

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	rfrun "github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

func init() {
	helpers["replaced"] = replacedHelper
}

// replacedHelper runs as a copy of the test binary. Before it confines
// anything, it renames a script over its own binary (a concurrent upgrade,
// or an attacker who can write the install directory), then runs a
// command through the backend — the init and the exec stage are started
// after the replacement. With RF_LL_CONTROL=1 it instead executes the
// init the way a path-based launcher would (initproc.Executable, the
// path os.Executable reports) to show the replacement is there to run.
func replacedHelper() {
	exe, ws, mark := os.Getenv("RF_LL_EXE"), os.Getenv("RF_LL_DIR"), os.Getenv("RF_LL_MARK")
	script := fmt.Sprintf("#!/bin/sh\necho replaced >> %s\nexit 0\n", mark)
	if err := os.WriteFile(exe+".new", []byte(script), 0o755); err != nil {
		fail(err)
	}
	if err := os.Rename(exe+".new", exe); err != nil {
		fail(err)
	}
	if os.Getenv("RF_LL_CONTROL") == "1" {
		path, err := initproc.Executable()
		if err != nil {
			fail(err)
		}
		out, err := exec.Command(path, initproc.Arg).CombinedOutput()
		fmt.Printf("control ran %s: %v %q\n", path, err, out)
		os.Exit(0)
	}
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: ws, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: ws, Access: policy.Write, Origin: policy.FromMode}}}
	c, err := (&Provider{}).Confine(confine.Request{Argv: []string{"/bin/echo", "confined-ok"}, Policy: p,
		Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		fail(err)
	}
	r, err := rfrun.Run(context.Background(), c, rfrun.Options{Timeout: time.Minute})
	if err != nil {
		fail(err)
	}
	code := -1
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	fmt.Printf("exit %d stdout %q stderr %q\n", code, r.Stdout, r.Stderr)
	os.Exit(0)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "helper:", err)
	os.Exit(3)
}

// A binary replaced on disk after ringfence started cannot become the init
// nor the exec stage: both are executed from the running image
// (initproc.SelfExe), so the command runs confined and the replacement
// never runs. The control shows the replacement is really at the path the
// binary was started from: executed by that path, it runs.
func TestReplacedBinaryCannotBecomeInit(t *testing.T) {
	testenv.Need(t, "landlock backend", (&Provider{}).Available())
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "ringfence.test")
	copyFile(t, self, exe)
	ws := t.TempDir()
	run := func(control bool) (string, string) {
		t.Helper()
		mark := filepath.Join(dir, fmt.Sprintf("mark-%v", control))
		copyFile(t, self, exe) // each run starts from the real binary
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "RF_LL_HELPER=replaced", "RF_LL_EXE="+exe, "RF_LL_DIR="+ws, "RF_LL_MARK="+mark)
		if control {
			cmd.Env = append(cmd.Env, "RF_LL_CONTROL=1")
		}
		out, err := cmd.CombinedOutput()
		b, _ := os.ReadFile(mark)
		if len(b) == 0 && err != nil {
			t.Fatalf("helper: %v\n%s", err, out)
		}
		return string(out), string(b)
	}
	if out, mark := run(true); !strings.Contains(mark, "replaced") {
		t.Fatalf("control: the replacement did not run by path (helper said %q)", out)
	}
	out, mark := run(false)
	if mark != "" {
		t.Fatalf("the replaced binary ran during a confined run (%q); helper said %q", mark, out)
	}
	if !strings.Contains(out, `exit 0 stdout "confined-ok\n"`) {
		t.Fatalf("the confined command did not run from the original image: %q", out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	_ = os.Remove(to)
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// The same, run by an unprivileged user (uid 65534).
func TestReplacedBinaryCannotBecomeInitNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestReplacedBinaryCannotBecomeInit$")
}
