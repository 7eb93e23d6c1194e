//go:build linux

package run

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
)

// replacedHelper runs as a copy of the test binary: it renames a script
// over its own binary, then runs a command under the reaper. With
// RF_RUN_CONTROL=1 it executes the path os.Executable names instead, to
// show the replacement is there to run.
func replacedHelper() {
	exe, mark := os.Getenv("RF_RUN_EXE"), os.Getenv("RF_RUN_MARK")
	script := fmt.Sprintf("#!/bin/sh\necho replaced >> %s\nexit 0\n", mark)
	if err := os.WriteFile(exe+".new", []byte(script), 0o755); err != nil {
		helperFail(err)
	}
	if err := os.Rename(exe+".new", exe); err != nil {
		helperFail(err)
	}
	if os.Getenv("RF_RUN_CONTROL") == "1" {
		path, err := os.Executable()
		if err != nil {
			helperFail(err)
		}
		out, err := exec.Command(path, reapArg).CombinedOutput()
		fmt.Printf("control ran %s: %v %q\n", path, err, out)
		os.Exit(0)
	}
	r, err := Run(context.Background(), shCmd("echo reaped-ok"), Options{Timeout: time.Minute, Reaper: true})
	if err != nil {
		helperFail(err)
	}
	fmt.Printf("stdout %q\n", r.Stdout)
	os.Exit(0)
}

func helperFail(err error) {
	fmt.Fprintln(os.Stderr, "helper:", err)
	os.Exit(3)
}

// A binary replaced on disk after the supervisor started cannot run as the
// reaper: it is executed from the running image (/proc/self/exe). The
// control executes the path the binary was started from, and the
// replacement runs.
func TestReplacedBinaryCannotBecomeReaper(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "run.test")
	run := func(control bool) (string, string) {
		t.Helper()
		copyBinary(t, self, exe)
		mark := filepath.Join(dir, fmt.Sprintf("mark-%v", control))
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "RF_RUN_HELPER=replaced", "RF_RUN_EXE="+exe, "RF_RUN_MARK="+mark)
		if control {
			cmd.Env = append(cmd.Env, "RF_RUN_CONTROL=1")
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
		t.Fatalf("the replaced binary ran as the reaper (%q); helper said %q", mark, out)
	}
	if !strings.Contains(out, `stdout "reaped-ok\n"`) {
		t.Fatalf("the command did not run under the original reaper: %q", out)
	}
}

func copyBinary(t *testing.T, from, to string) {
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
