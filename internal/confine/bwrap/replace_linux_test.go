package bwrap_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/entry"
	rfrun "github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/internal/testenv/replacebin"
	"github.com/ringfence/ringfence/policy"
)

func init() {
	entry.Role("RF_BWRAP_HELPER", func(name string) int {
		if name == "replaced" {
			replacedHelper()
		}
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
		return 100
	})
}

// replacedHelper runs as a copy of the test binary (replacebin): it
// renames a script over its own binary, then runs a command under the
// bwrap backend, which prints what the sandbox's pid 1 (the exec shim)
// was executed as. As the control it executes the path os.Executable
// names as the shim instead, to show the replacement is there to run.
func replacedHelper() {
	if err := replacebin.Plant(); err != nil {
		helperFail(err)
	}
	replacebin.Control(os.Executable, bwrap.ShimArg)
	ws := os.Getenv("RF_BWRAP_DIR")
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: ws, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: ws, Access: policy.Write}}}
	argv := []string{"/bin/sh", "-c", `echo confined-ok; tr '\0' ' ' < /proc/1/cmdline | cut -d' ' -f1,2`}
	c, err := bwrap.New(bwrap.Options{}).Confine(confine.Request{Argv: argv, Policy: pol, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		helperFail(err)
	}
	r, err := rfrun.Run(context.Background(), c, rfrun.Options{Timeout: time.Minute})
	if err != nil {
		helperFail(err)
	}
	code := -1
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	fmt.Printf("image %s exit %d stdout %q stderr %q\n", initimage.Describe(), code, r.Stdout, r.Stderr)
	os.Exit(0)
}

func helperFail(err error) {
	fmt.Fprintln(os.Stderr, "helper:", err)
	os.Exit(3)
}

// A binary replaced on disk after ringfence started cannot run as the
// exec shim: bwrap executes the shim from a descriptor it inherits,
// /proc/self/fd/N in the sandbox, never from the path ringfence was
// installed at. Here the descriptor is the running binary's own image
// (/proc/self/exe: a test binary carries no init image). The control
// executes that path as the shim, and the replacement runs.
func TestReplacedBinaryCannotBecomeShim(t *testing.T) {
	testenv.Need(t, "bwrap", bwrap.New(bwrap.Options{}).Available())
	replacebin.Test(t, []string{"RF_BWRAP_HELPER=replaced", "RF_BWRAP_DIR=" + t.TempDir(), initimage.Env + "=self"},
		`image the ringfence binary (chosen) exit 0 stdout "confined-ok\n/proc/self/fd/7 __exec\n" stderr ""`)
}

// The same with the carried image, as the shipped binary runs: the
// descriptor is the sealed memfd.
func TestReplacedBinaryCannotBecomeEmbeddedShim(t *testing.T) {
	testenv.Need(t, "bwrap", bwrap.New(bwrap.Options{}).Available())
	replacebin.Test(t, []string{"RF_BWRAP_HELPER=replaced", "RF_BWRAP_DIR=" + t.TempDir(), initimage.Env + "=embedded"},
		`sealed memfd, copied by the kernel from the executable) exit 0 stdout "confined-ok\n/proc/self/fd/7 __exec\n" stderr ""`)
}

// Both, run by an unprivileged user (uid 65534).
func TestReplacedBinaryCannotBecomeShimNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestReplacedBinaryCannotBecome(Embedded)?Shim$")
}
