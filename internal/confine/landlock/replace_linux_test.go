package landlock

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	rfrun "github.com/ringfence/ringfence/internal/run"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/internal/testenv/replacebin"
	"github.com/ringfence/ringfence/policy"
)

func init() {
	helpers["replaced"] = replacedHelper
}

// replacedHelper runs as a copy of the test binary (replacebin). Before
// it confines anything, it renames a script over its own binary, then runs
// a command through the backend — the init and the exec stage are started
// after the replacement. As the control it instead executes the init the
// way a path-based launcher would (initproc.Executable, the path
// os.Executable reports) to show the replacement is there to run.
func replacedHelper() {
	ws := os.Getenv("RF_LL_DIR")
	if err := replacebin.Plant(); err != nil {
		fail(err)
	}
	replacebin.Control(initproc.Executable, initproc.Arg)
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
	fmt.Printf("init %s exit %d stdout %q stderr %q\n", initimage.Describe(), code, r.Stdout, r.Stderr)
	os.Exit(0)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "helper:", err)
	os.Exit(3)
}

// A binary replaced on disk after ringfence started cannot become the init
// nor the exec stage: with RINGFENCE_INIT=self both are executed from the
// running image (initproc.SelfExe), so the command runs confined and the replacement
// never runs. The control shows the replacement is really at the path the
// binary was started from: executed by that path, it runs.
func TestReplacedBinaryCannotBecomeInit(t *testing.T) {
	testenv.Need(t, "landlock backend", (&Provider{}).Available())
	replacebin.Test(t, []string{"RF_LL_HELPER=replaced", "RF_LL_DIR=" + t.TempDir(), initimage.Env + "=self"}, `exit 0 stdout "confined-ok\n"`)
}

// The same, run by an unprivileged user (uid 65534).
func TestReplacedBinaryCannotBecomeInitNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestReplacedBinaryCannotBecomeInit$")
}

// The same with the carried init (internal/confine/initimage), as the
// shipped binary runs: the memfd is made after the replacement, from the
// blob in the running image's memory, so the init and the exec stage are
// still ringfence's own.
func TestReplacedBinaryCannotBecomeEmbeddedInit(t *testing.T) {
	testenv.Need(t, "landlock backend", (&Provider{}).Available())
	replacebin.Test(t, []string{"RF_LL_HELPER=replaced", "RF_LL_DIR=" + t.TempDir(), initimage.Env + "=embedded"},
		`sealed memfd, copied by the kernel from the executable) exit 0 stdout "confined-ok\n" stderr ""`)
}

func TestReplacedBinaryCannotBecomeEmbeddedInitNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestReplacedBinaryCannotBecomeEmbeddedInit$")
}
