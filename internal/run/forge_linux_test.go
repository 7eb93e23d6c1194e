package run

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// A command under the reaper cannot reopen the reaper's status channel
// through /proc/<reaper>/fd and report an outcome of its own: the reaper
// is not dumpable. The control opens, the same way, a pipe held by a
// dumpable process of the same user (this test), and succeeds. Run as an
// unprivileged user: root's CAP_SYS_PTRACE opens any process's
// descriptors (a gap of danger-full-access as root, documented in
// internal/reaper). Both reapers: the running binary's and the carried
// image's.
func TestCommandCannotForgeReaperStatus(t *testing.T) {
	if os.Geteuid() == 0 {
		for _, image := range []string{"self", "embedded"} {
			t.Run(image, func(t *testing.T) {
				inittest.Rerun(t, inittest.RerunOptions{Pattern: "^TestCommandCannotForgeReaperStatus$", UID: 65534, NoSkip: true,
					Env: []string{"PATH=/usr/bin:/bin", initimage.Env + "=" + image}})
			})
		}
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	script := `printf control > /proc/$CTL_PID/fd/$CTL_FD && echo control-ok
printf '{"kind":"exited","exitCode":0}\n' > /proc/$PPID/fd/3 && echo forged
exit 7`
	c := shCmd(script, "CTL_PID="+strconv.Itoa(os.Getpid()), "CTL_FD="+strconv.Itoa(int(w.Fd())))
	res := mustRun(t, c, Options{Reaper: true})
	out := string(res.Stdout)
	if !strings.Contains(out, "control-ok") {
		t.Fatalf("control: the command could not open a dumpable process's pipe, so this test cannot fail: stdout %q stderr %q", out, res.Stderr)
	}
	if strings.Contains(out, "forged") || res.ExitCode == nil || *res.ExitCode != 7 {
		t.Fatalf("the command wrote the reaper's status channel: exit %v stdout %q stderr %q", res.ExitCode, out, res.Stderr)
	}
}

// A nil ExtraFiles entry is refused under the reaper: its number would
// be left closed in the reaper, where a file of the runtime's could land
// and reach the command.
func TestReaperRefusesNilExtraFile(t *testing.T) {
	c := shCmd("true")
	c.ExtraFiles = []*os.File{nil}
	_, err := Run(t.Context(), c, Options{Reaper: true})
	var se *StartError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "nil ExtraFiles") {
		t.Fatalf("Run = %v, want a StartError about the nil entry", err)
	}
}
