// Package replacebin is the harness for the replaced-binary attack: a
// binary replaced on disk after ringfence started (a concurrent upgrade,
// or an attacker who can write the install directory) must never be what
// ringfence re-executes as its init, exec stage or reaper, which run from
// the running image (/proc/self/exe), never from the path.
//
// A test calls Test with the role that makes its test binary the helper.
// The helper, running as a fresh copy of the test binary, calls Plant
// (which renames a script over the copy), then either, under Control,
// executes the copy the way a path-based launcher would (the script runs:
// the attack is real), or does the real work through ringfence and
// prints what the command said.
package replacebin

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The variables the helper gets.
const (
	exeEnv     = "RF_REPLACED_EXE"     // the copy the helper runs as
	markEnv    = "RF_REPLACED_MARK"    // the file the planted script appends to
	controlEnv = "RF_REPLACED_CONTROL" // "1": the control run
)

// Plant renames a script over the helper's own binary; run, the script
// appends "replaced" to the mark file.
func Plant() error {
	exe, mark := os.Getenv(exeEnv), os.Getenv(markEnv)
	if exe == "" || mark == "" {
		return fmt.Errorf("replacebin: %s or %s not set: not started by replacebin.Test", exeEnv, markEnv)
	}
	script := fmt.Sprintf("#!/bin/sh\necho replaced >> %s\nexit 0\n", mark)
	if err := os.WriteFile(exe+".new", []byte(script), 0o755); err != nil {
		return err
	}
	return os.Rename(exe+".new", exe)
}

// Control returns at once unless this helper is the control run; then it
// executes the binary where a path-based launcher would find it (launch
// says where) with args, prints what happened for Test, and exits.
func Control(launch func() (string, error), args ...string) {
	if os.Getenv(controlEnv) != "1" {
		return
	}
	path, err := launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	out, err := exec.Command(path, args...).CombinedOutput()
	fmt.Printf("control ran %s: %v %q\n", path, err, out)
	os.Exit(0)
}

// Test starts the helper (env: its role and anything else it needs) twice,
// each time from a fresh copy of the test binary: as the control, whose
// planted script must run, and for real, where it must not, and the
// helper's output must contain want (the command ran from the original
// image).
func Test(t *testing.T, env []string, want string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, filepath.Base(self))
	run := func(control bool) (string, string) {
		t.Helper()
		mark := filepath.Join(dir, fmt.Sprintf("mark-%v", control))
		copyFile(t, self, exe) // each run starts from the real binary
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(append(os.Environ(), env...), exeEnv+"="+exe, markEnv+"="+mark)
		if control {
			cmd.Env = append(cmd.Env, controlEnv+"=1")
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
		t.Fatalf("the replaced binary ran in place of ringfence's own (%q); helper said %q", mark, out)
	}
	if !strings.Contains(out, want) {
		t.Fatalf("the command did not run from the original image: %q, want %q in it", out, want)
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
